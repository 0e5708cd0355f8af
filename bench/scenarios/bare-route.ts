import type { Scenario } from '../lib/types.js';
import { serverSetup } from '../lib/server-setup.js';

/** The HTTP baseline: what Fastify alone serves on this machine, in this run. */
export const bareRoute: Scenario = {
  name: 'bare-route',
  description: 'GET /bench on plain Fastify 5: no plugins, no hooks, logger off',
  kind: 'http',
  // Seen on the two-core VM: in some runs this server reads ~40 µs per request instead of ~24, the heavier servers
  // not moving with it; a goal read against such a run would pass on the baseline's slowness.
  confirm: true,
  setup: (context) => serverSetup('bare-route', context),
};
