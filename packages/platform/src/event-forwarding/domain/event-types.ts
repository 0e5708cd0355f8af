import type { AuditEvent } from '../../audit/audit-log.js';

/**
 * The security event types this transmitter sends and how audit events map onto them (SSF 1.0, CAEP 1.0, RISC
 * 1.0). An audit event becomes exactly one SET: the CAEP or RISC event when one describes what happened, otherwise
 * our generic audit event type that carries the audit record as stored (identifiers and redacted details only).
 */
export const CAEP_SESSION_REVOKED = 'https://schemas.openid.net/secevent/caep/event-type/session-revoked';
export const CAEP_CREDENTIAL_CHANGE = 'https://schemas.openid.net/secevent/caep/event-type/credential-change';
export const RISC_ACCOUNT_PURGED = 'https://schemas.openid.net/secevent/risc/event-type/account-purged';
/** SSF 1.0 §8.1.4: the event a verification request makes the transmitter send. */
export const SSF_VERIFICATION = 'https://schemas.openid.net/secevent/ssf/event-type/verification';
/** Ours: any audit event that no CAEP or RISC type describes. A URN, since it names no document. */
export const TESSERA_AUDIT_EVENT = 'urn:tessera:secevent:audit-event';

/** What the stream configuration answers as `events_supported` (SSF 1.0 §8.1.1). */
export const EVENTS_SUPPORTED: readonly string[] = [
  CAEP_SESSION_REVOKED,
  CAEP_CREDENTIAL_CHANGE,
  RISC_ACCOUNT_PURGED,
  TESSERA_AUDIT_EVENT,
];

/** SSF 1.0 §8.1.1: events_delivered is the intersection of events_supported and events_requested. */
export const eventsDelivered = (requested: readonly string[]): string[] =>
  EVENTS_SUPPORTED.filter((uri) => requested.includes(uri));

/** Audit records of a revoked grant or ended session (token revocation, logout). */
const SESSION_REVOKED = (e: AuditEvent) =>
  e.commandId === 'token-service.revocation.revoke' || e.type === 'authentication.logout';
/** Audit records of a verifiable credential's status change (status list entry update: revocation, suspension). */
const CREDENTIAL_STATUS_CHANGED = (e: AuditEvent) => e.commandId === 'status-list.update-entry';
/** Audit records of an erasure (a person's data removed: GDPR erasure, external erase, person deletion). */
const ERASED = (e: AuditEvent) =>
  /(^|[._-])(erase|erasure|gdpr_erasure)($|[._-])/.test(e.commandId ?? '') ||
  /(^|[._-])(erase|erasure|gdpr_erasure)($|[._-])/.test(e.type);
const PERSON_DELETED = (e: AuditEvent) => e.commandId === 'party-rest.persons.delete';

export interface SecurityEvent {
  uri: string;
  payload: Record<string, unknown>;
}

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/**
 * The SET event of an audit event. Only a successful command is the event it names (a refused revocation
 * revoked nothing): failures and denials go out as the generic audit event, like everything else.
 */
export function securityEventOf(event: AuditEvent): SecurityEvent {
  const base = { event_timestamp: seconds(event.occurredAt) };
  // CAEP 1.0 §2 initiating_entity: a principal acting (a client revoking its grant, an administrator changing a
  // credential's status), or the system (a job).
  const acting = event.principalId !== null;
  if (event.result === 'success') {
    if (SESSION_REVOKED(event))
      return { uri: CAEP_SESSION_REVOKED, payload: { ...base, initiating_entity: acting ? 'user' : 'system' } };
    if (PERSON_DELETED(event)) return { uri: RISC_ACCOUNT_PURGED, payload: {} };
    if (CREDENTIAL_STATUS_CHANGED(event))
      return {
        uri: CAEP_CREDENTIAL_CHANGE,
        payload: {
          ...base,
          initiating_entity: acting ? 'admin' : 'system',
          credential_type: 'verifiable-credential',
          change_type: 'update',
        },
      };
    if (ERASED(event))
      return {
        uri: CAEP_CREDENTIAL_CHANGE,
        payload: {
          ...base,
          initiating_entity: acting ? 'admin' : 'system',
          credential_type: 'verifiable-credential',
          change_type: 'delete',
        },
      };
  }
  return { uri: TESSERA_AUDIT_EVENT, payload: { ...base, audit_event: event } };
}
