import { constantTimeEqual } from '@tessera/platform';

/** A JWK SHA-256 thumbprint (RFC 7638) in base64url, the form of `dpop_jkt` (RFC 9449 §10) and `cnf.jkt` (§6.1). */
export const JWK_THUMBPRINT = /^[A-Za-z0-9_-]{43}$/;

/**
 * Whether a token request's proof fits its grant. A grant bound to a key, by `dpop_jkt` at the authorization
 * endpoint (RFC 9449 §10) or by the proof of its code exchange (§5: the refresh token is bound too), takes only
 * a proof by that key. Answers the reason for a refusal, or null.
 */
export function dpopBindingError(boundJkt: string | null, proofJkt: string | null): string | null {
  if (boundJkt === null) return null;
  if (proofJkt === null) return 'A DPoP proof is required: the grant is bound to a DPoP key.';
  if (!constantTimeEqual(boundJkt, proofJkt)) return 'The DPoP proof key is not the key the grant is bound to.';
  return null;
}
