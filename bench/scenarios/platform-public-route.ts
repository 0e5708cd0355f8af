import type { Scenario } from '../lib/types.js';
import { serverSetup } from '../lib/server-setup.js';

/** The cost of the platform middleware on a public route, relative to Fastify alone. */
export const platformPublicRoute: Scenario = {
  name: 'platform-public-route',
  description:
    'GET /bench in a createRoleApp app: tenancy, info logging, metrics, correlation id, rate limiting on; tracing off',
  kind: 'http',
  baseline: 'bare-route',
  // Issue 22: per core, so that the load generator's share of the two cores does not decide the ratio.
  goal: {
    minRatio: 0.7,
    basis: 'per-core',
    text: 'a public route through the platform middleware keeps at least 70% of the bare route per core',
  },
  setup: (context) => serverSetup('platform-public-route', context),
};
