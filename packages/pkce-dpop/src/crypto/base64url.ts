/** Base64url without padding (RFC 4648 §5, as JOSE uses it: RFC 7515 §2). */
const BASE64URL = /^[A-Za-z0-9_-]*$/;

export function encodeBase64url(input: Uint8Array | string): string {
  return Buffer.from(typeof input === 'string' ? Buffer.from(input, 'utf8') : input).toString('base64url');
}

/** Strict decoding: null for anything outside the base64url alphabet (Buffer alone would skip such characters). */
export function decodeBase64url(input: string): Uint8Array | null {
  if (!BASE64URL.test(input) || input.length % 4 === 1) return null;
  return new Uint8Array(Buffer.from(input, 'base64url'));
}
