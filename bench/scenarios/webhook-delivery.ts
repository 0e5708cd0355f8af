import type { Scenario } from '../lib/types.js';
import { serverInDataDir } from '../lib/server-setup.js';

/** Issue 15: an event written to the outbox in its unit of work, then delivered signed to a local receiver. */
export const webhookDelivery: Scenario = {
  name: 'webhook-delivery',
  description:
    'POST /bench: outbox write in the tenant unit of work on PostgreSQL, then signed delivery to a loopback receiver',
  kind: 'http',
  baseline: 'bare-route',
  goal: { minRatio: 0.2, text: 'events written and delivered per second at least 20% of the bare route' },
  setup: (context) =>
    serverInDataDir('webhook-delivery', context, {}, async (child) => ({
      url: child.url,
      requests: [{ method: 'POST', path: '/bench' }],
    })),
};
