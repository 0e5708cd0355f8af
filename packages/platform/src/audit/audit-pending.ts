import type { Sql } from '../db/database.js';
import type { AuditEventInput, AuditLog, AuditOutcome } from './audit-log.js';
import type { HashedEventFields } from './canonical.js';

/**
 * Staged audit events (issue 13 §7, migrations/0005_audit_pending.sql). A command that writes stages its audit
 * event in the same unit of work as its change, so that the two commit together: a change is never committed
 * without its event, and a command whose event could not be written has changed nothing. The audit store then
 * chains the staged event (by its id) and deletes the staged row in the chaining statement; what a crash or an
 * outage leaves staged is chained by `AuditStore.recoverPending` (job audit.pending.recover).
 *
 * Staging is one INSERT into a table no other writer contends for, so it costs the unit of work no lock on the
 * chain head: units of work of one tenant still run in parallel, and chaining keeps its group commit.
 */

/** An event prepared for staging: every field of the chained event except its position in the chain. */
export type PendingAuditEvent = Omit<HashedEventFields, 'seq'>;

/** What a unit of work needs to stage an event: the audit store prepares it (validates, gives it its id). */
export interface AuditStaging {
  /** The event prepared for staging: validated, with its id and time fixed. */
  prepare(input: AuditEventInput): PendingAuditEvent;
  /**
   * Once the unit of work that staged `staged` has committed: chains its final version, the staged event with the
   * outcome its command ended with (only the outcome is prepared again). Resolves once chained.
   */
  appendStagedOutcome?(staged: PendingAuditEvent, outcome: AuditOutcome): Promise<void>;
}

const STAGE_EVENTS = `
INSERT INTO audit_pending (event_id, event, staged_at)
SELECT (e.value->>'eventId')::uuid, e.value, (e.value->>'occurredAt')::timestamptz
  FROM jsonb_array_elements($1::text::jsonb) AS e(value)
ON CONFLICT (tenant_id, event_id) DO NOTHING`;

/**
 * Stages events in the caller's unit of work (a transaction of their tenant): they commit or roll back with it.
 * staged_at is the event's time (the application's clock), which the recovery compares with its own.
 */
export async function stageAuditEvents(sql: Sql, events: readonly PendingAuditEvent[]): Promise<void> {
  if (events.length === 0) return;
  await sql.query(STAGE_EVENTS, [JSON.stringify(events)]);
}

/**
 * For a write that is one statement over many requests' rows (the token endpoint's batched redemptions): the
 * common table expression that stages the events of the rows the statement changed. `source` is a relation of the
 * statement with a jsonb column `audit_event` (a PendingAuditEvent, or null for a row that stages nothing).
 */
export function stageAuditEventsFrom(source: string): string {
  return `INSERT INTO audit_pending (event_id, event, staged_at)
    SELECT (s.audit_event->>'eventId')::uuid, s.audit_event, (s.audit_event->>'occurredAt')::timestamptz
      FROM ${source} s WHERE s.audit_event IS NOT NULL
    ON CONFLICT (tenant_id, event_id) DO NOTHING`;
}

/**
 * A context's own events (a command with `audit: 'self'`, or events beside the bus's: `session_completed`,
 * `binding_created`, `gdpr_erasure`…) staged in the unit of work of the change they record, then chained once it has
 * committed. `chain()` never fails: an event it cannot chain stays staged, durable, for the recovery.
 */
export class StagedAuditEvents {
  private readonly staged: { input: AuditEventInput; prepared: PendingAuditEvent }[] = [];

  constructor(private readonly audit: AuditLog & AuditStaging) {}

  /** Stages the event in `sql`'s unit of work; it commits or rolls back with it. */
  async stage(sql: Sql, input: AuditEventInput): Promise<void> {
    const prepared = this.audit.prepare(input);
    await stageAuditEvents(sql, [prepared]);
    this.staged.push({ input, prepared });
  }

  /** Once the unit of work has committed: chains the staged events (the rest is the recovery's). */
  async chain(): Promise<void> {
    const events = this.staged.splice(0);
    await Promise.all(
      events.map(({ input, prepared }) =>
        (this.audit.appendStagedOutcome
          ? this.audit.appendStagedOutcome(prepared, input)
          : this.audit.append(
              { ...input, eventId: prepared.eventId, occurredAt: new Date(prepared.occurredAt) },
              { staged: true },
            )
        ).catch(() => undefined),
      ),
    );
  }

  /** After a unit of work that rolled back: forgets what it staged. */
  discard(): void {
    this.staged.length = 0;
  }
}
