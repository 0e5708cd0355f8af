import { promisify } from 'node:util';
import { constants, deflate, deflateSync, gzip, gzipSync, type ZlibOptions } from 'node:zlib';
import type { KeyManager } from '@tessera/platform';
import { compressionOf, listClaims, typOf } from '../domain/list-forms.js';
import { packedLength, toMostSignificantFirst } from '../domain/status-bits.js';
import { CHUNK_BYTES, type StoredList } from '../storage/list-rows.js';
import { signListJwt } from './sign-list.js';

const deflateAsync = promisify(deflate);
const gzipAsync = promisify(gzip);

/**
 * The highest level (Token Status List §4.1 recommends it) with zlib's run-length strategy: a status list is long
 * runs of zeros between few set statuses, which Z_RLE encodes in a single pass. On 10,000,000 one-bit entries with
 * 1% set at random it costs about a hundredth of the default strategy's CPU (milliseconds instead of most of a
 * second) for an output some 8% larger; any inflater reads it. The W3C lists use GZIP with the same settings.
 * Large lists are compressed on the libuv thread pool (zlib's callback API), so compressing does not hold the event
 * loop; small ones on the loop (SYNC_COMPRESSION_MAX_BYTES).
 */
export const COMPRESSION: ZlibOptions = { level: 9, strategy: constants.Z_RLE };

/**
 * Bitstrings up to this size are compressed on the event loop. Handing a small input to the thread pool costs more
 * CPU than compressing it: on the bench VM a 32 KiB list (131,072 entries of 2 bits) took about 60 us of CPU
 * synchronously against about 360 us through the thread pool, while the loop is held some 100 us at this size.
 * Larger lists (a 10,000,000-entry list packs 1.25 MB) stay on the thread pool, so the loop stays free.
 */
export const SYNC_COMPRESSION_MAX_BYTES = 64 * 1024;

export const compressStatuses = async (kind: 'zlib' | 'gzip', bytes: Uint8Array): Promise<Buffer> => {
  if (bytes.length <= SYNC_COMPRESSION_MAX_BYTES)
    return kind === 'zlib' ? deflateSync(bytes, COMPRESSION) : gzipSync(bytes, COMPRESSION);
  return kind === 'zlib' ? deflateAsync(bytes, COMPRESSION) : gzipAsync(bytes, COMPRESSION);
};

/** The statuses of a list from its written chunks (chunks never written are zeros). */
export function assembleStatuses(list: StoredList, chunks: { chunkNo: number; bytes: Uint8Array }[]): Uint8Array {
  const bytes = new Uint8Array(packedLength(list.length, list.bits));
  for (const { chunkNo, bytes: chunk } of chunks) {
    const start = chunkNo * CHUNK_BYTES;
    if (start >= bytes.length) continue;
    bytes.set(chunk.subarray(0, Math.min(chunk.length, bytes.length - start)), start);
  }
  return bytes;
}

export interface RenderedList {
  token: string;
  etag: string;
  /** seconds */
  iat: number;
  exp: number;
}

/**
 * A strong validator (RFC 9110 §8.8.3) of the exact bytes served: the start of the token's ECDSA signature, which
 * is drawn afresh at every signing, so any new form has a new tag (and hashing megabytes on the event loop is
 * avoided).
 */
export const etagOf = (token: string): string => `"${token.slice(token.lastIndexOf('.') + 1).slice(0, 32)}"`;

/** Encodes, compresses and signs a list. `statuses` is consumed (the W3C order is made in place). */
export async function renderList(
  keys: KeyManager,
  list: StoredList,
  statuses: Uint8Array,
  uri: string,
  now: Date,
): Promise<RenderedList> {
  const kind = compressionOf(list.type);
  const compressed = await compressStatuses(kind, kind === 'gzip' ? toMostSignificantFirst(statuses) : statuses);
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + list.validitySeconds;
  const claims = listClaims({
    type: list.type,
    uri,
    issuer: list.issuer,
    statusPurpose: list.statusPurpose,
    bits: list.bits,
    iat,
    exp,
    ttlSeconds: list.ttlSeconds,
    compressed: compressed.toString('base64url'),
  });
  const token = await signListJwt(keys, list.keyAlias, list.issuer, typOf(list.type), claims);
  return { token, etag: etagOf(token), iat, exp };
}
