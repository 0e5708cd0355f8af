import type { PkceMethod } from './pkce-types.js';
import { PKCE_METHODS } from './pkce-types.js';

/** code_verifier = 43*128unreserved, unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~" (RFC 7636 §4.1). */
const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** An S256 challenge is BASE64URL(SHA-256(...)) without padding: always 43 characters (RFC 7636 §4.2). */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function isValidCodeVerifier(value: unknown): value is string {
  return typeof value === 'string' && CODE_VERIFIER.test(value);
}

/** A `plain` challenge is the verifier itself, so it follows the verifier syntax (RFC 7636 §4.2). */
export function isValidCodeChallenge(value: unknown, method: PkceMethod): value is string {
  if (typeof value !== 'string') return false;
  return method === 'S256' ? S256_CHALLENGE.test(value) : CODE_VERIFIER.test(value);
}

export function isPkceMethod(value: unknown): value is PkceMethod {
  return typeof value === 'string' && (PKCE_METHODS as readonly string[]).includes(value);
}

/** Rejects configuration mistakes early: an empty list, or a method that RFC 7636 does not define. */
export function assertAllowedMethods(allowedMethods: readonly PkceMethod[]): void {
  if (allowedMethods.length === 0 || !allowedMethods.every(isPkceMethod)) {
    throw new TypeError('allowedMethods must list S256 and/or plain');
  }
}
