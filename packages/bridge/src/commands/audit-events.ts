import type { AuditEventInput } from '@tessera/platform';
import type { BridgeServices } from '../services.js';
import type { PresentationSession } from '../domain/session.js';

/**
 * The bridge's own audit events (000 §6), correlated by the user flow (the oauthSessionId, else the session id),
 * never with personal data: ids, check names and reason texts that name what failed, not what was presented.
 */
/** A session that ended in ERROR or EXPIRED (`session_failed`), to stage in the unit of work of that move. */
export function sessionFailedEvent(
  services: BridgeServices,
  tenantId: string,
  session: PresentationSession,
  failure: { check: string; reason: string },
): AuditEventInput {
  return {
    tenantId,
    type: 'session_failed',
    result: 'failure',
    correlationId: session.correlationId,
    businessIds: { sessionId: session.id },
    details: { check: failure.check, reason: failure.reason, queryId: session.queryId },
    occurredAt: services.clock.now(),
  };
}

/** A response refused while the session stays open for another one (README "Rejected responses"). */
export function responseRejectedEvent(
  services: BridgeServices,
  tenantId: string,
  session: PresentationSession,
  failure: { check: string; reason: string },
  rejectedResponses: number,
): AuditEventInput {
  return {
    tenantId,
    type: 'response_rejected',
    result: 'failure',
    correlationId: session.correlationId,
    businessIds: { sessionId: session.id },
    details: { check: failure.check, reason: failure.reason, queryId: session.queryId, rejectedResponses },
    occurredAt: services.clock.now(),
  };
}

export type SessionEventType =
  | 'session_verified'
  | 'session_completed'
  | 'binding_created'
  | 'match_confirmation_required'
  | 'match_confirmed'
  | 'match_declined';

/** The event of a session step, to stage in the step's unit of work (StagedAuditEvents). */
export function sessionEvent(
  services: BridgeServices,
  tenantId: string,
  session: PresentationSession,
  type: SessionEventType,
  details: Record<string, unknown>,
): AuditEventInput {
  return {
    tenantId,
    type,
    result: 'success',
    correlationId: session.correlationId,
    businessIds: { sessionId: session.id },
    details,
    occurredAt: services.clock.now(),
  };
}
