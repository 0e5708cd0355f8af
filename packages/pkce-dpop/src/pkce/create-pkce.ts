import { randomToken } from '../crypto/random-token.js';
import { assertAllowedMethods, isValidCodeVerifier } from './check-pkce-format.js';
import { computeCodeChallenge } from './compute-code-challenge.js';
import { PkceError } from './pkce-error.js';
import { DEFAULT_PKCE_METHODS, type PkceData, type PkceMethod } from './pkce-types.js';

/**
 * Creates the PKCE pair of an authorization request (spec 002 §4.2 step 1, RFC 7636 §4.1–4.2).
 *
 * `codeVerifier` null generates one from 32 random octets (43 characters, the length RFC 7636 §4.1 recommends).
 * The method is S256 whenever it is allowed; `plain` is used only when the caller allows nothing else.
 */
export function createPkce(
  codeVerifier: string | null,
  allowedMethods: readonly PkceMethod[] = DEFAULT_PKCE_METHODS,
): PkceData {
  assertAllowedMethods(allowedMethods);
  const verifier = codeVerifier ?? randomToken(32);
  if (!isValidCodeVerifier(verifier)) {
    throw new PkceError(
      'invalid_request',
      'invalid_code_verifier',
      'code_verifier must be 43 to 128 characters of [A-Za-z0-9-._~]',
    );
  }
  const method: PkceMethod = allowedMethods.includes('S256') ? 'S256' : 'plain';
  return { codeVerifier: verifier, codeChallenge: computeCodeChallenge(verifier, method), codeChallengeMethod: method };
}
