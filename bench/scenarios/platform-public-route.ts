import type { Scenario } from '../lib/types.js';
import { serverSetup } from '../lib/server-setup.js';

/** The cost of the platform middleware on a public route, relative to Fastify alone. */
export const platformPublicRoute: Scenario = {
  name: 'platform-public-route',
  description:
    'GET /bench in a createRoleApp app: tenancy, info logging, metrics, correlation id, rate limiting on; tracing off',
  kind: 'http',
  baseline: 'bare-route',
  goal: {
    minRatio: 0.6,
    text: 'a public route through the platform middleware keeps at least 60% of the bare route throughput',
  },
  setup: (context) => serverSetup('platform-public-route', context),
};
