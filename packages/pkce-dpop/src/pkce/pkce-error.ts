/**
 * PKCE failures (spec 002 §7 leaves the kinds open). `code` is the OAuth error a server puts on the wire:
 * a malformed parameter is `invalid_request` (RFC 6749 §5.2), a verifier that does not match the code's challenge
 * is `invalid_grant` (RFC 7636 §4.6). `reason` is finer and stable, for logs and tests. No message ever carries
 * a code verifier or a challenge.
 */
export type PkceErrorCode = 'invalid_request' | 'invalid_grant';

export type PkceFailureReason =
  | 'invalid_code_verifier'
  | 'invalid_code_challenge'
  | 'method_not_allowed'
  | 'missing_code_verifier'
  | 'missing_code_challenge'
  | 'unexpected_code_verifier'
  | 'verifier_mismatch';

export class PkceError extends Error {
  readonly code: PkceErrorCode;
  readonly reason: PkceFailureReason;
  readonly description: string;

  constructor(code: PkceErrorCode, reason: PkceFailureReason, description: string) {
    super(description);
    this.name = 'PkceError';
    this.code = code;
    this.reason = reason;
    this.description = description;
  }
}
