import type { Scenario, ScenarioSetup, SetupContext } from '../lib/types.js';
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
  setup: (context) => floorSetup(context, {}),
};

/**
 * The same with the outbox row written by one autocommit INSERT (one round trip, no transaction block): below what
 * issue 15 allows (the row is written in the transaction of the change that causes it), so above any implementation.
 */
export const webhookDeliveryFloorOneStatement: Scenario = {
  name: 'webhook-delivery-floor-one-statement',
  description: 'floor: one autocommit INSERT per event then the signed POST; no transaction block (reference)',
  kind: 'http',
  baseline: 'bare-route',
  setup: (context) => floorSetup(context, { BENCH_FLOOR_ONE_STATEMENT: '1' }),
};

function floorSetup(context: SetupContext, env: Record<string, string>): Promise<ScenarioSetup> {
  return serverInDataDir('webhook-delivery-floor', context, { env }, async (child) => ({
    url: child.url,
    requests: [{ method: 'POST', path: '/bench' }],
  }));
}
