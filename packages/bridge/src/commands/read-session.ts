import { StagedAuditEvents } from '@tessera/platform';
import type { PresentationSession } from '../domain/session.js';
import { EXPIRABLE, hasTimedOut } from '../domain/session-state.js';
import type { BridgeServices } from '../services.js';
import { sessionStore } from '../storage/session-store.js';
import { sessionFailedEvent } from './audit-events.js';
import { sessionNotFound } from './errors.js';

/**
 * Reads a session and applies the timeout on read with the injected clock (000 §3.1: CREATED, INTERACTION_STARTED
 * and VERIFYING expire `sessionTimeoutSeconds` after creation). The move to EXPIRED is committed before the caller
 * answers 410, with its session_failed event staged in the same unit of work (issue 13 §7). Unknown ids answer 404 session_not_found.
 */
export async function readSession(
  services: BridgeServices,
  tenantId: string,
  by: { id: string } | { requestId: string },
): Promise<PresentationSession> {
  const now = services.clock.now();
  const events = new StagedAuditEvents(services.platform.audit);
  const session = await services.platform.db.withTenant(tenantId, async (sql) => {
    const found =
      'id' in by ? await sessionStore.get(sql, by.id) : await sessionStore.getByRequestId(sql, by.requestId);
    if (!found || !hasTimedOut(found.status, found.expiresAt, now)) return found;
    const moved = await sessionStore.transition(sql, found.id, EXPIRABLE, 'EXPIRED', now);
    if (!moved) return sessionStore.get(sql, found.id);
    await events.stage(
      sql,
      sessionFailedEvent(services, tenantId, moved, {
        check: 'timeout',
        reason: 'the session expired before it was verified',
      }),
    );
    return moved;
  });
  if (!session) throw sessionNotFound();
  await events.chain();
  return session;
}
