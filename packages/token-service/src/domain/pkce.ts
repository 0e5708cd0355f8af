import { createHash, timingSafeEqual } from 'node:crypto';

/** RFC 7636 §4.1: 43–128 characters of [A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~". */
export const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge is base64url of a SHA-256 digest: 43 characters. */
export const S256_CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

/** The S256 challenge of a verifier (RFC 7636 §4.2): BASE64URL(SHA256(ASCII(code_verifier))). */
export const s256Challenge = (codeVerifier: string): string =>
  createHash('sha256').update(codeVerifier, 'ascii').digest('base64url');

/**
 * Verifies a code_verifier against the stored S256 challenge (RFC 7636 §4.6) in constant time. Only S256 is
 * accepted (000 §5). The verifier never appears in an error message.
 */
export function verifyS256(codeVerifier: string, codeChallenge: string): boolean {
  if (!CODE_VERIFIER.test(codeVerifier)) return false;
  const computed = createHash('sha256').update(codeVerifier, 'ascii').digest();
  const expected = Buffer.from(codeChallenge, 'base64url');
  return expected.length === computed.length && timingSafeEqual(computed, expected);
}
