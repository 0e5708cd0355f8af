import { createCipheriv, createDecipheriv, type KeyObject } from 'node:crypto';
import { secureRandomBytes } from '../crypto/secure-random.js';

/**
 * AES-256-GCM (NIST SP 800-38D) as this module uses it: a random 96-bit IV per message (§8.2.2), a 128-bit tag,
 * additional authenticated data binding the ciphertext to its context. A one-time data key is passed as raw bytes
 * (a KeyObject per message would cost more than the cipher); long-lived keys as KeyObjects.
 */
export const GCM_IV_BYTES = 12;
export const GCM_TAG_BYTES = 16;

export interface GcmParts {
  iv: Buffer;
  ciphertext: Buffer;
  tag: Buffer;
}

export function gcmEncrypt(key: KeyObject | Uint8Array, plaintext: Uint8Array, aad: Uint8Array): GcmParts {
  const iv = secureRandomBytes(GCM_IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: GCM_TAG_BYTES });
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv, ciphertext, tag: cipher.getAuthTag() };
}

/** Throws when the tag does not verify: wrong key, tampered bytes, or other additional data. */
export function gcmDecrypt(key: KeyObject | Uint8Array, parts: GcmParts, aad: Uint8Array): Buffer {
  if (parts.iv.length !== GCM_IV_BYTES || parts.tag.length !== GCM_TAG_BYTES)
    throw new Error('malformed AES-GCM input');
  const decipher = createDecipheriv('aes-256-gcm', key, parts.iv, { authTagLength: GCM_TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(parts.tag);
  return Buffer.concat([decipher.update(parts.ciphertext), decipher.final()]);
}

/** `iv || ciphertext || tag` in one buffer: the wrapped form of a data key inside an envelope. */
export function gcmEncryptPacked(key: KeyObject, plaintext: Uint8Array, aad: Uint8Array): Buffer {
  const { iv, ciphertext, tag } = gcmEncrypt(key, plaintext, aad);
  return Buffer.concat([iv, ciphertext, tag]);
}

export function gcmDecryptPacked(key: KeyObject, packed: Buffer, aad: Uint8Array): Buffer {
  if (packed.length < GCM_IV_BYTES + GCM_TAG_BYTES) throw new Error('malformed AES-GCM input');
  return gcmDecrypt(
    key,
    {
      iv: packed.subarray(0, GCM_IV_BYTES),
      ciphertext: packed.subarray(GCM_IV_BYTES, packed.length - GCM_TAG_BYTES),
      tag: packed.subarray(packed.length - GCM_TAG_BYTES),
    },
    aad,
  );
}
