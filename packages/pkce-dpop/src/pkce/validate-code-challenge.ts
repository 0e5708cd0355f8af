import { assertAllowedMethods, isPkceMethod, isValidCodeChallenge } from './check-pkce-format.js';
import { PkceError } from './pkce-error.js';
import { DEFAULT_PKCE_METHODS, type PkceMethod } from './pkce-types.js';

/**
 * Authorization-endpoint side of PKCE: checks the `code_challenge` and `code_challenge_method` of a request and
 * returns the method to store with the code. An absent method means `plain` (RFC 7636 §4.3), so it is refused
 * unless `plain` is allowed. Every failure is `invalid_request` (RFC 7636 §4.4.1).
 */
export function validateCodeChallenge(
  codeChallenge: string | null | undefined,
  method: string | null | undefined,
  allowedMethods: readonly PkceMethod[] = DEFAULT_PKCE_METHODS,
): PkceMethod {
  assertAllowedMethods(allowedMethods);
  if (codeChallenge === null || codeChallenge === undefined || codeChallenge === '') {
    throw new PkceError('invalid_request', 'missing_code_challenge', 'code_challenge is required');
  }
  const effective = method === null || method === undefined || method === '' ? 'plain' : method;
  if (!isPkceMethod(effective) || !allowedMethods.includes(effective)) {
    throw new PkceError('invalid_request', 'method_not_allowed', 'code_challenge_method is not supported');
  }
  if (!isValidCodeChallenge(codeChallenge, effective)) {
    throw new PkceError('invalid_request', 'invalid_code_challenge', 'code_challenge is malformed');
  }
  return effective;
}
