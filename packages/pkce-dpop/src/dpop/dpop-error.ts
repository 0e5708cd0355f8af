/**
 * DPoP verification failures (spec 002 §7 leaves the kinds open; RFC 9449 names them).
 *
 * `code` is the error a server puts on the wire: `invalid_dpop_proof` for a bad proof (RFC 9449 §7.1, §12.2),
 * `use_dpop_nonce` when the proof lacks the current server nonce (§8, §9), `invalid_token` when the proof is sound
 * but its key is not the one the access token is bound to (§7.1 "Invalid DPoP key binding"). A resource server
 * answers 401 with `WWW-Authenticate: DPoP ...` (see dpopChallenge); a token endpoint answers 400 with the same
 * code in a JSON error body (RFC 9449 §5). With `use_dpop_nonce` the server also sends a fresh `DPoP-Nonce`.
 *
 * `reason` is finer and stable, for logs, metrics and tests. No message carries a proof, a token or a key.
 */
export type DpopErrorCode = 'invalid_dpop_proof' | 'use_dpop_nonce' | 'invalid_token';

export type DpopFailureReason =
  | 'missing_proof'
  | 'multiple_proofs'
  | 'malformed_proof'
  | 'invalid_typ'
  | 'unsupported_alg'
  | 'invalid_jwk'
  | 'private_jwk'
  | 'invalid_signature'
  | 'missing_claim'
  | 'htm_mismatch'
  | 'htu_mismatch'
  | 'iat_out_of_window'
  | 'missing_nonce'
  | 'invalid_nonce'
  | 'missing_ath'
  | 'ath_mismatch'
  | 'jkt_mismatch'
  | 'replayed_jti';

export class DpopError extends Error {
  readonly code: DpopErrorCode;
  readonly reason: DpopFailureReason;
  readonly description: string;

  constructor(code: DpopErrorCode, reason: DpopFailureReason, description: string, options?: { cause?: unknown }) {
    super(description, options);
    this.name = 'DpopError';
    this.code = code;
    this.reason = reason;
    this.description = description;
  }
}

export function invalidProof(reason: DpopFailureReason, description: string, cause?: unknown): DpopError {
  return new DpopError('invalid_dpop_proof', reason, description, cause === undefined ? undefined : { cause });
}
