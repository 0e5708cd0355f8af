import type { AuditEvent } from '../../audit/audit-log.js';
import type { SecurityEvent } from './event-types.js';

/** JWS `typ` of a Security Event Token (RFC 8417 §2.3). */
export const SET_TYPE = 'secevent+jwt';
/** Media type of a pushed SET (RFC 8935 §2). */
export const SET_CONTENT_TYPE = 'application/secevent+jwt';

/** A subject identifier (RFC 9493), as SSF 1.0 §3 uses them in `sub_id`. */
export type SubjectIdentifier =
  | { format: 'opaque'; id: string }
  | { format: 'complex'; user?: SubjectIdentifier; session?: SubjectIdentifier; tenant?: SubjectIdentifier };

/** Business ids that name a session or grant (token service, bridge). */
const SESSION_IDS = ['grantId', 'sessionId'];

/**
 * The subject of an audit event's SET: the session or grant it concerns (with the principal as the user) when
 * the event names one, else the principal, else the tenant. Opaque identifiers only: the ids as the audit stores
 * them, never personal data.
 */
export function subjectOf(event: AuditEvent): SubjectIdentifier {
  const user = event.principalId === null ? undefined : ({ format: 'opaque', id: event.principalId } as const);
  const sessionKey = SESSION_IDS.find((k) => typeof event.businessIds[k] === 'string');
  if (sessionKey)
    return {
      format: 'complex',
      session: { format: 'opaque', id: event.businessIds[sessionKey]! },
      ...(user ? { user } : {}),
      tenant: { format: 'opaque', id: event.tenantId },
    };
  if (user) return user;
  return { format: 'complex', tenant: { format: 'opaque', id: event.tenantId } };
}

/**
 * The claims of a SET (RFC 8417 §2.2) for one audit event: `jti` is the audit event id, so every retry and every
 * replica sends the same identifier and the receiver drops repeats by it; `txn` links the events of one request
 * (the correlation id); `sub_id` per SSF 1.0 §4.1.
 */
export function setClaims(input: {
  issuer: string;
  audience: readonly string[];
  event: AuditEvent;
  securityEvent: SecurityEvent;
  issuedAt: Date;
}): Record<string, unknown> {
  const { event, securityEvent } = input;
  return {
    iss: input.issuer,
    aud: input.audience.length === 1 ? input.audience[0] : [...input.audience],
    jti: event.eventId,
    iat: Math.floor(input.issuedAt.getTime() / 1000),
    ...(event.correlationId === null ? {} : { txn: event.correlationId }),
    sub_id: subjectOf(event),
    events: { [securityEvent.uri]: securityEvent.payload },
  };
}
