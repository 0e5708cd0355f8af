import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares two secrets (strings or bytes) in constant time: both sides are hashed first, so that inputs of
 * different lengths compare in the same time too (timingSafeEqual alone throws on a length difference, which leaks
 * the length). For client secrets, PKCE verifiers, MACs of cookies, callback and state tokens: every comparison of
 * a secret the deployment makes goes through this one.
 */
export function constantTimeEqual(a: string | Uint8Array, b: string | Uint8Array): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

const digest = (value: string | Uint8Array) =>
  typeof value === 'string'
    ? createHash('sha256').update(value, 'utf8').digest()
    : createHash('sha256').update(value).digest();
