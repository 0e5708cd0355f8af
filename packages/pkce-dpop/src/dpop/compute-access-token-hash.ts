import { sha256Base64url } from '../crypto/sha256.js';

/** `ath` = BASE64URL(SHA-256(ASCII(access token))) (RFC 9449 §4.2, example in §7.1). */
export function computeAccessTokenHash(accessToken: string): string {
  return sha256Base64url(accessToken);
}
