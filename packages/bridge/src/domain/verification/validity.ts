/**
 * Validity period of a credential (RFC 7519 §4.1.4-4.1.6 nbf/exp/iat; W3C VC Data Model 2.0 §4.9 validFrom and
 * validUntil, 1.1 issuanceDate and expirationDate), with a tolerated clock skew. Answers the problem, or null.
 */
const seconds = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const instant = (v: unknown) => {
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : t / 1000;
};

export function validityProblem(
  payload: Record<string, unknown>,
  now: Date,
  skewSeconds: number,
  vc?: Record<string, unknown>,
): string | null {
  const t = now.getTime() / 1000;
  for (const claim of ['exp', 'nbf', 'iat'] as const) {
    if (payload[claim] !== undefined && seconds(payload[claim]) === undefined) return `${claim} is not a number`;
  }
  const exp = seconds(payload.exp);
  const nbf = seconds(payload.nbf);
  const iat = seconds(payload.iat);
  if (exp !== undefined && t > exp + skewSeconds) return 'the credential has expired';
  if (nbf !== undefined && t < nbf - skewSeconds) return 'the credential is not yet valid';
  if (iat !== undefined && t < iat - skewSeconds) return 'the credential is issued in the future';
  if (vc) {
    const from = instant(vc.validFrom ?? vc.issuanceDate);
    const until = instant(vc.validUntil ?? vc.expirationDate);
    if (from === null || until === null) return 'a validity date of the credential is malformed';
    if (until !== undefined && t > until + skewSeconds) return 'the credential has expired';
    if (from !== undefined && t < from - skewSeconds) return 'the credential is not yet valid';
  }
  return null;
}

/** The age window of a key-binding JWT or VP JWT `iat` (RFC 9901 §7.3 step 5, freshness by verifier policy). */
export function freshnessProblem(iat: unknown, now: Date, maxAgeSeconds: number, skewSeconds: number): string | null {
  const value = seconds(iat);
  if (value === undefined) return 'iat is missing';
  const t = now.getTime() / 1000;
  if (value > t + skewSeconds) return 'iat is in the future';
  if (t - value > maxAgeSeconds + skewSeconds) return 'iat is older than the accepted age';
  return null;
}
