import client from 'prom-client';
import type { Database } from '../db/database.js';
import type { Metrics } from '../observability/metrics.js';
import { circuitStates } from './storage/destination-store.js';

const CIRCUIT_VALUE = { closed: 0, half_open: 1, open: 2 } as const;

/**
 * Outbound delivery metrics (001 §4.5), on the platform's registry: deliveries by outcome, the latency of each
 * attempt, and the circuit state of every destination read from the database at scrape time (so every replica
 * reports the shared state, not what it last saw).
 */
export class OutboundMetrics {
  readonly deliveries: client.Counter<'outcome'>;
  readonly latency: client.Histogram<'outcome'>;

  constructor(metrics: Metrics, db: Database) {
    const registry = metrics.registry;
    this.deliveries =
      (registry.getSingleMetric('webhook_deliveries_total') as client.Counter<'outcome'> | undefined) ??
      new client.Counter({
        name: 'webhook_deliveries_total',
        help: 'Webhook delivery attempts by outcome (delivered, failed, dead).',
        labelNames: ['outcome'],
        registers: [registry],
      });
    this.latency =
      (registry.getSingleMetric('webhook_delivery_duration_seconds') as client.Histogram<'outcome'> | undefined) ??
      new client.Histogram({
        name: 'webhook_delivery_duration_seconds',
        help: 'Duration of one webhook delivery attempt (request to response end), by outcome.',
        labelNames: ['outcome'],
        buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers: [registry],
      });
    if (!registry.getSingleMetric('webhook_circuit_state'))
      new client.Gauge({
        name: 'webhook_circuit_state',
        help: 'Circuit breaker state per webhook destination: 0 closed, 1 half-open, 2 open.',
        labelNames: ['tenant', 'destination'],
        registers: [registry],
        async collect() {
          const rows = await db.withPlatform((sql) => circuitStates(sql));
          this.reset();
          for (const r of rows) this.set({ tenant: r.tenant_id, destination: r.id }, CIRCUIT_VALUE[r.circuit_state]);
        },
      });
  }
}
