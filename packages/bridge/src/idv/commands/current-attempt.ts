import { invalidSessionState, sessionExpired } from '../../commands/errors.js';
import { readSession } from '../../commands/read-session.js';
import type { PresentationSession } from '../../domain/session.js';
import type { IdvServices } from '../idv-services.js';
import { reconciliationStore, type Reconciliation } from '../storage/reconciliation-store.js';
import { applyLapse } from './lapse-reconciliation.js';

/**
 * The presentation session and its latest IDV attempt, with time applied (status and submit speak about it):
 * 404 unknown session, 410 an EXPIRED one, 409 invalid_session_state when no attempt was ever initiated.
 */
export async function currentAttempt(
  idv: IdvServices,
  tenantId: string,
  sessionId: string,
): Promise<{ session: PresentationSession; attempt: Reconciliation }> {
  const session = await readSession(idv.bridge, tenantId, { id: sessionId });
  if (session.status === 'EXPIRED') throw sessionExpired();
  const latest = await idv.bridge.platform.db.withTenant(tenantId, (sql) =>
    reconciliationStore.latestForSession(sql, sessionId),
  );
  if (!latest) throw invalidSessionState('No identity verification was initiated for this session.', session.status);
  return { session, attempt: await applyLapse(idv, tenantId, latest, session) };
}
