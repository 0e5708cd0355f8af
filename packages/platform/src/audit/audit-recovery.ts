import type { Database } from '../db/database.js';
import type { Clock } from '../observability/clock.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { AuditEvent } from './audit-log.js';
import type { PendingAuditEvent } from './audit-pending.js';
import type { AuditCheckpoints } from './audit-checkpoints.js';
import { INSERT_BATCH, chain, lockHead } from './audit-chain.js';

/**
 * Chains the staged events older than `olderThanSeconds` (audit-pending.ts): those whose process died, or lost
 * the database, between the commit of their unit of work and their chaining. Per tenant, under the chain head's
 * lock, so that an event is chained once whoever gets to it first. A recovered event is the staged version
 * (details.recovered: true): what the command knew only after its unit of work committed is not in it.
 * `onRecovered(tenantId)` learns of each tenant whose chain it extended. Answers how many events were chained.
 */
export async function recoverPendingAuditEvents(
  deps: { db: Database; clock: Clock; metrics: Metrics; logger: Logger; checkpoints: AuditCheckpoints },
  olderThanSeconds: number,
  onRecovered: (tenantId: string) => void,
): Promise<number> {
  const cutoff = new Date(deps.clock.now().getTime() - olderThanSeconds * 1000);
  const tenants = await deps.db.withPlatform((sql) =>
    sql.query<{ tenant_id: string }>('SELECT DISTINCT tenant_id FROM audit_pending WHERE staged_at < $1', [cutoff]),
  );
  let recovered = 0;
  for (const { tenant_id: tenantId } of tenants.rows) {
    const written = await deps.db.withTenant(tenantId, async (sql): Promise<AuditEvent[]> => {
      const head = await lockHead(sql);
      const taken = await sql.query<{ event: PendingAuditEvent }>(
        'DELETE FROM audit_pending WHERE staged_at < $1 RETURNING event',
        [cutoff],
      );
      if (taken.rows.length === 0) return [];
      const events = taken.rows
        .map(({ event }) => ({ ...event, details: { ...event.details, recovered: true } }))
        .sort((a, b) => a.occurredAt.localeCompare(b.occurredAt) || a.eventId.localeCompare(b.eventId));
      const chained = chain(head, events);
      const last = chained.events[chained.events.length - 1]!;
      const moved = await sql.query(INSERT_BATCH, [chained.rows, last.seq, last.hash]);
      if (moved.rowCount !== 1) throw new Error('the audit chain head vanished during a recovery');
      return chained.events;
    });
    if (written.length === 0) continue;
    onRecovered(tenantId);
    recovered += written.length;
    deps.metrics.auditAppends.inc({ result: 'success' }, written.length);
    deps.logger.warn({ tenant_id: tenantId, events: written.length }, 'staged audit events recovered');
    await deps.checkpoints.writeDue(tenantId, written);
  }
  return recovered;
}
