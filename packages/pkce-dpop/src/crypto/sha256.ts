import { createHash } from 'node:crypto';

/** BASE64URL(SHA-256(ASCII(value))): the PKCE S256 transform (RFC 7636 §4.2) and the DPoP `ath` (RFC 9449 §4.2). */
export function sha256Base64url(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('base64url');
}
