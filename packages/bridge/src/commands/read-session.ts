import type { PresentationSession } from '../domain/session.js';
import { EXPIRABLE, hasTimedOut } from '../domain/session-state.js';
import type { BridgeServices } from '../services.js';
import { sessionStore } from '../storage/session-store.js';
import { auditSessionFailed } from './audit-events.js';
import { sessionNotFound } from './errors.js';

/**
 * Reads a session and applies the timeout on read with the injected clock (000 §3.1: CREATED, INTERACTION_STARTED
 * and VERIFYING expire `sessionTimeoutSeconds` after creation). The move to EXPIRED is committed before the caller
 * answers 410, and audited as session_failed. Unknown ids answer 404 session_not_found.
 */
export async function readSession(
  services: BridgeServices,
  tenantId: string,
  by: { id: string } | { requestId: string },
): Promise<PresentationSession> {
  const now = services.clock.now();
  const { session, expired } = await services.platform.db.withTenant(tenantId, async (sql) => {
    const found =
      'id' in by ? await sessionStore.get(sql, by.id) : await sessionStore.getByRequestId(sql, by.requestId);
    if (!found || !hasTimedOut(found.status, found.expiresAt, now)) return { session: found, expired: false };
    const moved = await sessionStore.transition(sql, found.id, EXPIRABLE, 'EXPIRED', now);
    return { session: moved ?? (await sessionStore.get(sql, found.id)), expired: moved !== null };
  });
  if (!session) throw sessionNotFound();
  if (expired)
    await auditSessionFailed(services, tenantId, session, {
      check: 'timeout',
      reason: 'the session expired before it was verified',
    });
  return session;
}
