import { randomBytes, randomFillSync } from 'node:crypto';

/**
 * Random bytes for secrets (tokens, nonces, data keys, AES-GCM IVs), drawn from the CSPRNG in blocks, as Node does
 * for `crypto.randomUUID()`. Every `crypto.randomBytes` call costs a fixed ~6 µs on the bench VM whatever its size
 * (16 bytes or 4 KiB alike), and a session creation made seven such calls. Here a 4 KiB block is filled at once and
 * handed out in pieces: each byte is given to one caller only, as a copy (a refill never changes what a caller
 * holds), and its place in the block is zeroed once copied, so the block holds no secret that was handed out.
 */
const POOL_BYTES = 4096;
/** Larger requests are rare (keys made at start-up, key pairs): they go to the CSPRNG directly. */
const POOLED_MAX = 256;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;

/**
 * `length` fresh bytes of the block, read by `read` (a copy, or their text) and then zeroed there; the block is
 * refilled when it runs short.
 */
function handOut<T>(length: number, read: (at: number, end: number) => T): T {
  if (offset + length > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const at = offset;
  offset += length;
  const value = read(at, offset);
  pool.fill(0, at, offset);
  return value;
}

/** `length` bytes from the CSPRNG, in a buffer of the caller's own. */
export function secureRandomBytes(length: number): Buffer {
  if (!Number.isInteger(length) || length < 0) throw new RangeError('length must be a whole number >= 0');
  if (length > POOLED_MAX) return randomBytes(length);
  return handOut(length, (at, end) => Buffer.from(pool.subarray(at, end)));
}

/** `length` bytes from the CSPRNG as base64url (RFC 4648 §5, no padding): tokens, nonces, state values. */
export function secureRandomToken(length: number): string {
  if (!Number.isInteger(length) || length < 1) throw new RangeError('length must be a whole number >= 1');
  if (length > POOLED_MAX) return randomBytes(length).toString('base64url');
  return handOut(length, (at, end) => pool.toString('base64url', at, end));
}
