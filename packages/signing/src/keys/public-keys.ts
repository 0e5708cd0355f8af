import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import type { KeyKind } from '../domain/algorithms.js';
import { BoundedCache } from '../domain/bounded-cache.js';

/** The kind of a public or private key, or null for kinds the service does not sign with. */
export function keyKindOf(key: KeyObject): KeyKind | null {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return 'RSA';
    case 'ec':
      return 'EC';
    case 'dsa':
      return 'DSA';
    default:
      return null;
  }
}

export const spkiOf = (key: KeyObject): Buffer =>
  (key.type === 'private' ? createPublicKey(key) : key).export({ format: 'der', type: 'spki' });

/**
 * Public keys by their DER bytes: every merge verifies with its key entry's key, and importing one costs more than
 * the verification itself. Keyed by content, so an entry is the key those bytes give on any replica; a key that
 * does not import is not kept (it throws again).
 */
const publicKeys = new BoundedCache<KeyObject>(256);

export const publicKeyFromSpki = (spki: Buffer): KeyObject =>
  publicKeys.get(spki.toString('base64'), () => createPublicKey({ key: spki, format: 'der', type: 'spki' }));

export const spkiSha256 = (spki: Buffer): string => createHash('sha256').update(spki).digest('base64url');
