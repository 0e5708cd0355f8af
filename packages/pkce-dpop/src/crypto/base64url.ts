/** Base64url without padding (RFC 4648 §5, as JOSE uses it: RFC 7515 §2). */
export function encodeBase64url(input: Uint8Array | string): string {
  return Buffer.from(typeof input === 'string' ? Buffer.from(input, 'utf8') : input).toString('base64url');
}
