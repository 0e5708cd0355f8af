import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import type { KeyKind } from '../domain/algorithms.js';

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

export const publicKeyFromSpki = (spki: Buffer): KeyObject =>
  createPublicKey({ key: spki, format: 'der', type: 'spki' });

export const spkiSha256 = (spki: Buffer): string => createHash('sha256').update(spki).digest('base64url');
