import type { AuditEventInput } from '@tessera/platform';
import type { IdvFailureReason } from '../domain/failure-reasons.js';
import type { IdvServices } from '../idv-services.js';

/**
 * The IDV audit events (000 §6): idv_initiated, idv_completed, binding_created and session_failed, each with the
 * correlation id of the user flow (the presentation session's: its oauthSessionId, else its id) and ids only:
 * never a claim, a subject, a code or a state.
 */
export interface AuditedAttempt {
  id: string;
  sessionId: string;
  correlationId: string;
}

/** An IDV event, to append, or to stage in the unit of work of the step it records (StagedAuditEvents). */
export function idvEvent(
  idv: IdvServices,
  tenantId: string,
  attempt: AuditedAttempt,
  type: 'idv_initiated' | 'idv_completed' | 'binding_created',
  details: Record<string, unknown>,
): AuditEventInput {
  return {
    tenantId,
    type,
    result: 'success',
    correlationId: attempt.correlationId,
    businessIds: { sessionId: attempt.sessionId, reconciliationSessionId: attempt.id },
    details: { providerId: idv.providerId, ...details },
    occurredAt: idv.bridge.clock.now(),
  };
}

export async function auditIdv(
  idv: IdvServices,
  tenantId: string,
  attempt: AuditedAttempt,
  type: 'idv_initiated' | 'idv_completed' | 'binding_created',
  details: Record<string, unknown>,
): Promise<void> {
  await idv.bridge.platform.audit.append(idvEvent(idv, tenantId, attempt, type, details));
}

/** An attempt that ended in ERROR: `session_failed` with the check `idv` and the reason code (README). */
export function idvFailedEvent(
  idv: IdvServices,
  tenantId: string,
  attempt: AuditedAttempt,
  reason: IdvFailureReason,
): AuditEventInput {
  return {
    tenantId,
    type: 'session_failed',
    result: 'failure',
    correlationId: attempt.correlationId,
    businessIds: { sessionId: attempt.sessionId, reconciliationSessionId: attempt.id },
    details: { check: 'idv', reason, providerId: idv.providerId },
    occurredAt: idv.bridge.clock.now(),
  };
}

export async function auditIdvFailed(
  idv: IdvServices,
  tenantId: string,
  attempt: AuditedAttempt,
  reason: IdvFailureReason,
): Promise<void> {
  await idv.bridge.platform.audit.append(idvFailedEvent(idv, tenantId, attempt, reason));
}
