import { randomBytes } from 'node:crypto';
import { encodeBase64Url, encodeJsonBase64Url } from '../common/base64url.js';
import { hashBytes } from '../crypto/hash-bytes.js';

export interface Disclosure {
  encoded: string;
  digest: string;
}

/**
 * An object-property Disclosure `[salt, name, value]` (RFC 9901 §4.2.1) and its digest: base64url of SHA-256 over
 * the ASCII bytes of the encoded Disclosure (RFC 9901 §4.2.3). The salt has 128 bits of entropy (§9.3).
 */
export function createDisclosure(name: string, value: unknown, salt = encodeBase64Url(randomBytes(16))): Disclosure {
  const encoded = encodeJsonBase64Url([salt, name, value]);
  return { encoded, digest: digestDisclosure(encoded) };
}

export function digestDisclosure(encoded: string): string {
  return encodeBase64Url(hashBytes(encoded, 'sha-256'));
}
