import { AppError } from '@tessera/platform';
import { badRequest } from '../domain/errors.js';

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
