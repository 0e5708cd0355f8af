import { randomFillSync } from 'node:crypto';

/**
 * Random identifiers of the request path (trace and span ids, the request id that is the default correlation id),
 * cut from a pool of CSPRNG output that is turned into hex once per refill. An id is then a substring, which V8
 * makes without copying; a hex conversion per id (`Buffer#toString('hex', ...)`) cost ~0.7 µs per request for the
 * trace and span ids, and `crypto.randomUUID()` ~1 µs, together a few percent of a simple route (issue 22).
 * None of these ids is a secret: they only have to be unpredictable enough not to collide.
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let hex = '';
let offset = 0;

/** The offset in `hex` of `chars` fresh characters, refilling the pool when it runs short. */
function reserve(chars: number): number {
  if (offset + chars > hex.length) {
    randomFillSync(pool);
    hex = pool.toString('hex');
    offset = 0;
  }
  const at = offset;
  offset += chars;
  return at;
}

/** `bytes` random bytes as lowercase hex (at most 2 KiB). */
export function randomHex(bytes: number): string {
  const chars = bytes * 2;
  const at = reserve(chars);
  return hex.substring(at, at + chars);
}

/** The RFC 9562 variant nibble (10xx) for each hex digit: its two low bits kept. */
const VARIANT: Record<string, string> = {};
for (let i = 0; i < 16; i++) VARIANT[i.toString(16)] = ((i & 3) | 8).toString(16);

/** A random (version 4) UUID, lowercase, as `crypto.randomUUID()` gives. */
export function randomUuid(): string {
  const at = reserve(32);
  const h = hex;
  return (
    h.substring(at, at + 8) +
    '-' +
    h.substring(at + 8, at + 12) +
    '-4' +
    h.substring(at + 13, at + 16) +
    '-' +
    VARIANT[h[at + 16]!]! +
    h.substring(at + 17, at + 20) +
    '-' +
    h.substring(at + 20, at + 32)
  );
}
