import type { PresentationSession } from '../../domain/session.js';
import type { IdvFailureReason } from '../domain/failure-reasons.js';
import type { IdvServices } from '../idv-services.js';
import { reconciliationStore, type Reconciliation } from '../storage/reconciliation-store.js';
import { failReconciliation } from './fail-reconciliation.js';

/**
 * Time applied on read, with the injected clock (like the session's timeout): an open attempt whose presentation
 * session has expired ends in ERROR `session_expired` (000 §3.2 "expired session"); one still at the provider
 * (CREATED, REDIRECTED) past its own lifetime ends in ERROR `attempt_expired`. A CALLBACK_RECEIVED attempt is
 * left to the callback that holds it, or to the session's expiry.
 */
export async function applyLapse(
  idv: IdvServices,
  tenantId: string,
  attempt: Reconciliation,
  session: PresentationSession,
): Promise<Reconciliation> {
  const now = idv.bridge.clock.now();
  let reason: IdvFailureReason | null = null;
  if (attempt.status === 'COMPLETED' || attempt.status === 'ERROR') return attempt;
  if (session.status !== 'COMPLETED' && now >= session.expiresAt) reason = 'session_expired';
  else if (attempt.status !== 'CALLBACK_RECEIVED' && now >= attempt.expiresAt) reason = 'attempt_expired';
  if (!reason) return attempt;
  const failed = await failReconciliation(idv, tenantId, attempt.id, reason);
  if (failed) return failed;
  // Another request moved it first: answer from its state now.
  return (
    (await idv.bridge.platform.db.withTenant(tenantId, (sql) => reconciliationStore.get(sql, attempt.id))) ?? attempt
  );
}
