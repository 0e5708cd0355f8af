import { AppError } from '../errors/app-error.js';
import { GCM_IV_BYTES, GCM_TAG_BYTES } from './aes-gcm.js';

/**
 * The envelope of `KeyManager.encrypt`: `e1.<kid>.<wrapped data key>.<iv>.<ciphertext>.<tag>`, base64url parts.
 * The kid names the key-encryption key version, so that a reader needs nothing but the envelope and its additional
 * data, and a rotation can re-wrap the data key without touching the data.
 */
export const ENVELOPE_FORMAT = 'e1';
export const DATA_KEY_BYTES = 32;
/** iv || wrapped 32-byte data key || tag. */
const WRAPPED_KEY_BYTES = GCM_IV_BYTES + DATA_KEY_BYTES + GCM_TAG_BYTES;
const KID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export interface Envelope {
  kid: string;
  wrappedKey: Buffer;
  iv: Buffer;
  ciphertext: Buffer;
  tag: Buffer;
}

export function encodeEnvelope(envelope: Envelope): string {
  const { kid, wrappedKey, iv, ciphertext, tag } = envelope;
  return [ENVELOPE_FORMAT, kid, ...[wrappedKey, iv, ciphertext, tag].map((b) => b.toString('base64url'))].join('.');
}

export function decodeEnvelope(text: string): Envelope {
  const parts = typeof text === 'string' ? text.split('.') : [];
  if (parts.length !== 6 || parts[0] !== ENVELOPE_FORMAT || !KID_PATTERN.test(parts[1]!)) throw malformed();
  const [wrappedKey, iv, ciphertext, tag] = parts.slice(2).map((p) => Buffer.from(p, 'base64url')) as [
    Buffer,
    Buffer,
    Buffer,
    Buffer,
  ];
  if (wrappedKey.length !== WRAPPED_KEY_BYTES || iv.length !== GCM_IV_BYTES || tag.length !== GCM_TAG_BYTES)
    throw malformed();
  return { kid: parts[1]!, wrappedKey, iv, ciphertext, tag };
}

/** The additional data of a wrapped data key: it opens only under the key version it names. */
export function dataKeyAad(kid: string): Buffer {
  return Buffer.from(JSON.stringify(['tessera-dek', kid]), 'utf8');
}

export const undecryptable = (cause?: unknown) =>
  new AppError('invalid_request', 'The ciphertext cannot be decrypted.', {
    field: 'ciphertext',
    ...(cause === undefined ? {} : { cause }),
  });

const malformed = () => new AppError('invalid_request', 'The ciphertext is malformed.', { field: 'ciphertext' });
