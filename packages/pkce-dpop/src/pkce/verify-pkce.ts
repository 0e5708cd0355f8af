import { constantTimeEqual } from '../crypto/constant-time-equal.js';
import { assertAllowedMethods, isPkceMethod, isValidCodeVerifier } from './check-pkce-format.js';
import { computeCodeChallenge } from './compute-code-challenge.js';
import { PkceError } from './pkce-error.js';
import { DEFAULT_PKCE_METHODS, type PkceMethod } from './pkce-types.js';

/**
 * Token-endpoint side of PKCE (spec 002 §4.2 step 2, RFC 7636 §4.6): returns when the verifier matches the stored
 * challenge, throws a PkceError otherwise, and a server then rejects the token request.
 *
 * - A verifier without a stored challenge is rejected (RFC 9700 §2.1.1: no PKCE downgrade).
 * - A stored challenge without a verifier is rejected (RFC 7636 §4.6).
 * - `plain` only when listed in `allowedMethods`; an absent method counts as `plain` (RFC 7636 §4.3).
 * - The comparison runs in constant time.
 */
export function verifyPkce(
  codeVerifier: string | null | undefined,
  codeChallenge: string | null | undefined,
  method: string | null | undefined,
  allowedMethods: readonly PkceMethod[] = DEFAULT_PKCE_METHODS,
): void {
  assertAllowedMethods(allowedMethods);
  const hasVerifier = codeVerifier !== null && codeVerifier !== undefined;
  if (codeChallenge === null || codeChallenge === undefined || codeChallenge === '') {
    if (hasVerifier) {
      throw new PkceError(
        'invalid_grant',
        'unexpected_code_verifier',
        'code_verifier sent for a code issued without PKCE',
      );
    }
    throw new PkceError('invalid_grant', 'missing_code_challenge', 'the authorization code carries no code_challenge');
  }
  if (!hasVerifier || codeVerifier === '') {
    throw new PkceError('invalid_grant', 'missing_code_verifier', 'code_verifier is required');
  }
  if (!isValidCodeVerifier(codeVerifier)) {
    throw new PkceError(
      'invalid_request',
      'invalid_code_verifier',
      'code_verifier must be 43 to 128 characters of [A-Za-z0-9-._~]',
    );
  }
  const effective = method === null || method === undefined || method === '' ? 'plain' : method;
  if (!isPkceMethod(effective) || !allowedMethods.includes(effective)) {
    throw new PkceError('invalid_grant', 'method_not_allowed', 'code_challenge_method is not supported');
  }
  if (!constantTimeEqual(computeCodeChallenge(codeVerifier, effective), codeChallenge)) {
    throw new PkceError('invalid_grant', 'verifier_mismatch', 'code_verifier does not match the code_challenge');
  }
}
