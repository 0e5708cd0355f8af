import type { HeldCredential } from '../wallet/decode-held-credential.js';

/** Claims worth showing: the credential's own, without the JWT and SD-JWT machinery around them. */
const TECHNICAL_CLAIMS = new Set(['iss', 'sub', 'iat', 'nbf', 'exp', 'jti', 'vct', 'cnf', 'status', '_sd_alg']);

function claimsOf(credential: HeldCredential): Record<string, unknown> {
  if (credential.format === 'jwt_vc_json') {
    const { id: _subjectId, ...subject } = (credential.claims['credentialSubject'] ?? {}) as Record<string, unknown>;
    return subject;
  }
  return Object.fromEntries(Object.entries(credential.claims).filter(([name]) => !TECHNICAL_CLAIMS.has(name)));
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The lines that describe a held credential for a person: what it is, who issued it, its claims and its status
 * entry, with the list id and index the status-list API takes (`PUT /vc/status-lists/{id}/entries/{index}`).
 */
export function describeCredential(credential: HeldCredential): string[] {
  const type =
    credential.format === 'dc+sd-jwt'
      ? `vct ${credential.vct ?? '(none)'}`
      : `type ${(credential.types ?? []).join(', ')}`;
  const origin = credential.receivedFrom
    ? `received from ${credential.receivedFrom.credentialIssuer} (${credential.receivedFrom.credentialConfigurationId}, ${credential.receivedFrom.receivedAt})`
    : 'issued by the development issuer';
  const lines = [`Credential ${credential.id}: ${credential.format}, ${type}, ${origin}.`];
  lines.push(`  issuer: ${credential.issuer ?? '(none)'}`);
  // By name: the order of SD-JWT Disclosures is random (RFC 9901 §4.2.4).
  const claims = Object.entries(claimsOf(credential)).sort(([a], [b]) => a.localeCompare(b));
  lines.push(
    `  claims: ${claims.length > 0 ? claims.map(([name, value]) => `${name}=${show(value)}`).join(', ') : '(none)'}`,
  );
  if (credential.status.length === 0) lines.push('  status: no status entry');
  for (const entry of credential.status) {
    const purpose = entry.purpose ? ` (${entry.purpose})` : '';
    // A received credential is revoked at its issuer's status-list API, which names the list by the URI's last segment.
    const listId = credential.receivedFrom
      ? `; list id ${decodeURIComponent(new URL(entry.uri).pathname.split('/').filter(Boolean).pop() ?? '')}`
      : '';
    lines.push(`  status: index ${entry.index} of the list ${entry.uri}${purpose}${listId}`);
  }
  return lines;
}
