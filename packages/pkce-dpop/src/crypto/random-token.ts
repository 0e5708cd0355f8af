import { randomBytes } from 'node:crypto';

/** A base64url string of `bytes` random octets (32 octets give 43 characters, 256 bits). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
