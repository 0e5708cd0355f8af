import { randomInt } from 'node:crypto';
import { writeStatus } from '../src/domain/status-bits.js';
import { CHUNK_BYTES, type StoredList } from '../src/storage/list-rows.js';

/**
 * The list of the publish scenarios: 10,000,000 entries of one bit, 1% of them (100,000, at random) revoked, as
 * storage holds it: the written 1 KiB chunks (with 1% spread at random, every chunk holds some).
 */
export const TEN_MILLION = 10_000_000;

export function tenMillionChunks(): { chunkNo: number; bytes: Uint8Array }[] {
  const bytes = new Uint8Array(TEN_MILLION / 8);
  for (let i = 0; i < TEN_MILLION / 100; i++) writeStatus(bytes, randomInt(TEN_MILLION), 1, 1);
  const chunks = [];
  for (let start = 0; start < bytes.length; start += CHUNK_BYTES) {
    const chunk = new Uint8Array(CHUNK_BYTES);
    chunk.set(bytes.subarray(start, start + CHUNK_BYTES));
    chunks.push({ chunkNo: start / CHUNK_BYTES, bytes: chunk });
  }
  return chunks;
}

export const tenMillionList = (keyAlias: string): StoredList => ({
  listId: 'bench-10m',
  seriesId: 'bench-10m',
  generation: 1,
  type: 'OAuthStatusList',
  statusPurpose: 'revocation',
  bits: 1,
  length: TEN_MILLION,
  issuer: 'http://127.0.0.1:8098',
  proofFormat: 'jwt',
  keyAlias,
  correlationId: null,
  ttlSeconds: 300,
  validitySeconds: 86_400,
  permutationKey: new Uint8Array(32),
  allocated: 0,
  version: '1',
});
