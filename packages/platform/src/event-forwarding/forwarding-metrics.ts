import client from 'prom-client';
import type { Database } from '../db/database.js';
import type { Metrics } from '../observability/metrics.js';
import { streamLags } from './storage/stream-store.js';

/**
 * Audit forwarding metrics, on the platform's registry: events written to the outbox per stream format, and how far
 * each stream is behind its tenant's audit chain, read from the database at scrape time (every replica reports the
 * shared cursor). A lag that keeps growing means the loop is not running, or a paused stream.
 */
export class ForwardingMetrics {
  readonly forwarded: client.Counter<'format'>;

  constructor(metrics: Metrics, db: Database) {
    const registry = metrics.registry;
    this.forwarded =
      (registry.getSingleMetric('audit_forwarded_events_total') as client.Counter<'format'> | undefined) ??
      new client.Counter({
        name: 'audit_forwarded_events_total',
        help: 'Audit events written to the outbox for a stream, by stream format (set, json, cef, ocsf).',
        labelNames: ['format'],
        registers: [registry],
      });
    if (!registry.getSingleMetric('audit_forwarding_lag_events'))
      new client.Gauge({
        name: 'audit_forwarding_lag_events',
        help: 'Audit events of the tenant not yet forwarded by a stream (chain head minus the stream cursor).',
        labelNames: ['tenant', 'stream', 'status'],
        registers: [registry],
        async collect() {
          const rows = await db.withPlatform((sql) => streamLags(sql));
          this.reset();
          for (const r of rows) this.set({ tenant: r.tenantId, stream: r.id, status: r.status }, r.lag);
        },
      });
  }
}
