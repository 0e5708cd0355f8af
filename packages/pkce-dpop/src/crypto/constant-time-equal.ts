import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares two strings in constant time. Both sides are hashed first so that inputs of different lengths compare
 * in the same time too (timingSafeEqual alone throws on a length difference, which leaks the length).
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a, 'utf8').digest();
  const right = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(left, right);
}
