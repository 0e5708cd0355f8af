import { gunzipSync, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { compressStatuses, SYNC_COMPRESSION_MAX_BYTES } from './render-list.js';

/** A bitstring of `length` bytes with a few statuses set, as a list holds it. */
function statuses(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i += 997) bytes[i] = (i % 255) + 1;
  return bytes;
}

describe('compressStatuses', () => {
  // Below the threshold on the event loop, above it on the thread pool: both give the same stream.
  it.each([1024, SYNC_COMPRESSION_MAX_BYTES, SYNC_COMPRESSION_MAX_BYTES + 1, 1_250_000])(
    'compresses %i bytes to what inflates back, in both forms',
    async (length) => {
      const bytes = statuses(length);
      const zlib = await compressStatuses('zlib', bytes);
      const gzip = await compressStatuses('gzip', bytes);
      // Buffer equality: a deep comparison of a megabyte element by element takes minutes.
      expect(inflateSync(zlib).equals(bytes)).toBe(true);
      expect(gunzipSync(gzip).equals(bytes)).toBe(true);
      expect(zlib.length).toBeLessThan(length / 4);
    },
  );
});
