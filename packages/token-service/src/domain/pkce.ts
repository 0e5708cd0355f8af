import {
  computeCodeChallenge,
  isValidCodeChallenge,
  isValidCodeVerifier,
  PkceError,
  verifyPkce,
} from '@tessera/pkce-dpop';

/**
 * PKCE at the token service (RFC 7636), S256 only (000 §5), through `@tessera/pkce-dpop` (issue 13 §8: one copy of
 * the verification, the format checks and the constant-time comparison).
 */

/** RFC 7636 §4.1: 43–128 characters of [A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~". */
export const isCodeVerifier = (value: unknown): value is string => isValidCodeVerifier(value);

/** An S256 challenge is base64url of a SHA-256 digest: 43 characters. */
export const isS256Challenge = (value: unknown): value is string => isValidCodeChallenge(value, 'S256');

/** The S256 challenge of a verifier (RFC 7636 §4.2): BASE64URL(SHA256(ASCII(code_verifier))). */
export const s256Challenge = (codeVerifier: string): string => computeCodeChallenge(codeVerifier, 'S256');

/**
 * Verifies a code_verifier against the stored S256 challenge (RFC 7636 §4.6) in constant time. The verifier never
 * appears in an error message.
 */
export function verifyS256(codeVerifier: string, codeChallenge: string): boolean {
  try {
    verifyPkce(codeVerifier, codeChallenge, 'S256', ['S256']);
    return true;
  } catch (error) {
    if (error instanceof PkceError) return false;
    throw error;
  }
}
