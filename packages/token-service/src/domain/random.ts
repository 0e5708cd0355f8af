import { hash, randomFillSync } from 'node:crypto';

const TOKEN_BYTES = 32;
/** Random bytes are drawn from the CSPRNG in blocks (as Node does for randomUUID) and each byte is used once. */
const POOL_TOKENS = 128;
const pool = Buffer.alloc(TOKEN_BYTES * POOL_TOKENS);
let offset = pool.length;

/** Opaque credentials (codes, refresh tokens): 256 random bits, stored only as their SHA-256 hash. */
export function newOpaqueToken(): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const token = pool.toString('base64url', offset, offset + TOKEN_BYTES);
  offset += TOKEN_BYTES;
  return token;
}

export const hashToken = (token: string): string => hash('sha256', token, 'base64url');
