import { createHmac } from 'node:crypto';

/**
 * The lookup hash of 000 §4.3 and §5: base64url, without padding, of HMAC-SHA256 under the tenant's shared key of
 * the identifier's UTF-8 bytes, unnormalised (packages/identity README "Lookup hash"). The client computes it;
 * raw identifiers never cross the wire. Used by the hashing command line and the tests.
 */
export function computeIdentifierHash(keyBase64url: string, identifier: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(keyBase64url)) throw new TypeError('the key must be base64url without padding');
  const key = Buffer.from(keyBase64url, 'base64url');
  if (key.length < 16) throw new TypeError('the key is shorter than 16 bytes');
  if (identifier.length === 0) throw new TypeError('the identifier is empty');
  return createHmac('sha256', key).update(identifier, 'utf8').digest('base64url');
}
