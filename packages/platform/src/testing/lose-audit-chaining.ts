import type { AppendOptions, AuditEventInput, AuditOutcome } from '../audit/audit-log.js';
import type { PendingAuditEvent } from '../audit/audit-pending.js';
import type { AuditStore } from '../audit/audit-store.js';
import { AppError } from '../errors/app-error.js';

/** Which events are lost: by type and command id, and whether the event was staged first. */
export type LostEvent = (event: { type: string; commandId?: string | null | undefined }, staged: boolean) => boolean;

/**
 * Makes the chaining of the events `lost` picks fail, as when the database goes away right after the unit of work
 * that staged them committed: both ways an event reaches the chain fail for them with 503, `append` (an event
 * appended, or a staged event chained from its input) and `appendStagedOutcome` (a staged event chained from the
 * version its unit of work staged). Answers the function that restores the store.
 */
export function loseAuditChaining(audit: AuditStore, lost: LostEvent): () => void {
  const append = audit.append.bind(audit);
  const appendStagedOutcome = audit.appendStagedOutcome.bind(audit);
  const unreachable = () => Promise.reject(new AppError('service_unavailable', 'The database is unreachable.'));
  const patched = audit as { append: AuditStore['append']; appendStagedOutcome: AuditStore['appendStagedOutcome'] };
  patched.append = (event: AuditEventInput, options?: AppendOptions) =>
    lost(event, options?.staged === true) ? unreachable() : append(event, options);
  patched.appendStagedOutcome = (staged: PendingAuditEvent, outcome: AuditOutcome) =>
    lost(staged, true) ? unreachable() : appendStagedOutcome(staged, outcome);
  return () => {
    delete (patched as Partial<typeof patched>).append;
    delete (patched as Partial<typeof patched>).appendStagedOutcome;
  };
}
