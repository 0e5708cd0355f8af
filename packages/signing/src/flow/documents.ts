import { AppError } from '@tessera/platform';
import { badRequest } from '../domain/errors.js';

/**
 * Whether `base64` is `bytes` as Buffer#toString('base64') writes them, so that a prefix of the text of a multiple
 * of 4 characters encodes the same prefix of the bytes. Node's decoder skips characters outside the alphabet and
 * also takes base64url: a text exactly as long as the padded encoding of the bytes (nothing was skipped) and
 * without '-' or '_' is that encoding.
 */
export function isCanonicalBase64(base64: string, bytes: Buffer): boolean {
  return base64.length === Math.ceil(bytes.length / 3) * 4 && !base64.includes('-') && !base64.includes('_');
}

/** A base64 document decoded, refused with 413 above the configured size (issue 21: bad input, never a 5xx). */
export function decodeDocument(base64: string, maxBytes: number, field: string): Buffer {
  // The decoded size is known from the text's length before decoding.
  if (Math.floor((base64.length * 3) / 4) > maxBytes + 2)
    throw new AppError('payload_too_large', `The document exceeds the limit of ${maxBytes} bytes.`, { field });
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length > maxBytes)
    throw new AppError('payload_too_large', `The document exceeds the limit of ${maxBytes} bytes.`, { field });
  if (bytes.length === 0) throw badRequest('The document is empty.', field);
  return bytes;
}
