import type { Scenario } from '../lib/types.js';
import { serverInDataDir } from '../lib/server-setup.js';

/**
 * Reference for issue 15 (no goal): bench/servers/webhook-delivery-floor.ts, a transaction per event (BEGIN with the
 * tenant setting, INSERT, COMMIT) and the signed POST to a loopback receiver, on a bare Fastify route. Its ratio to
 * the bare route is what any implementation that keeps a transaction per event can reach in the same run.
 */
export const webhookDeliveryFloor: Scenario = {
  name: 'webhook-delivery-floor',
  description:
    'floor: a transaction per event (BEGIN, INSERT, COMMIT) then the signed POST; no loop, no hooks (reference)',
  kind: 'http',
  baseline: 'bare-route',
  setup: (context) =>
    serverInDataDir('webhook-delivery-floor', context, { readyTimeoutMs: 120_000 }, async (child) => ({
      url: child.url,
      requests: [{ method: 'POST', path: '/bench' }],
    })),
};
