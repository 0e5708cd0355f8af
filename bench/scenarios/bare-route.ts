import type { Scenario } from '../lib/types.js';
import { serverSetup } from '../lib/server-setup.js';

/** The HTTP baseline: what Fastify alone serves on this machine, in this run. */
export const bareRoute: Scenario = {
  name: 'bare-route',
  description: 'GET /bench on plain Fastify 5: no plugins, no hooks, logger off',
  kind: 'http',
  setup: (context) => serverSetup('bare-route', context),
};
