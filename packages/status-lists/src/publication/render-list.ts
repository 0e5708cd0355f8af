import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { deflate, gzip } from 'node:zlib';
import type { KeyManager } from '@tessera/platform';
import { compressionOf, listClaims, typOf } from '../domain/list-forms.js';
import { packedLength, toMostSignificantFirst } from '../domain/status-bits.js';
import { CHUNK_BYTES, type StoredList } from '../storage/list-rows.js';
import { signListJwt } from './sign-list.js';

const deflateAsync = promisify(deflate);
const gzipAsync = promisify(gzip);

/**
 * Token Status List §4.1 recommends the highest compression level; the W3C lists use GZIP at the same level.
 * Both run on the libuv thread pool (zlib's callback API), so compressing a list of ten million entries does not
 * hold the event loop.
 */
export const COMPRESSION_LEVEL = 9;

export const compressStatuses = (kind: 'zlib' | 'gzip', bytes: Uint8Array): Promise<Buffer> =>
  kind === 'zlib' ? deflateAsync(bytes, { level: COMPRESSION_LEVEL }) : gzipAsync(bytes, { level: COMPRESSION_LEVEL });

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

/** A strong validator (RFC 9110 §8.8.3): the digest of the exact bytes served. */
export const etagOf = (token: string): string =>
  `"${createHash('sha256').update(token).digest('base64url').slice(0, 32)}"`;

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
