import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { IndexPermutation } from './index-permutation.js';

describe('IndexPermutation', () => {
  it.each([1, 2, 3, 8, 100, 1000, 4097])('is a bijection of 0..%i-1 with its inverse', (size) => {
    const permutation = new IndexPermutation(randomBytes(32), size);
    const seen = new Set<number>();
    for (let counter = 0; counter < size; counter++) {
      const index = permutation.forward(counter);
      expect(index).toBeGreaterThanOrEqual(0);
      expect(index).toBeLessThan(size);
      expect(permutation.inverse(index)).toBe(counter);
      seen.add(index);
    }
    expect(seen.size).toBe(size);
  });

  it('does not hand out indexes in issuance order', () => {
    const permutation = new IndexPermutation(randomBytes(32), 131_072);
    const first = Array.from({ length: 50 }, (_, i) => permutation.forward(i));
    const ascending = first.every((v, i) => i === 0 || v > first[i - 1]!);
    expect(ascending).toBe(false);
    // Spread over the list rather than bunched at its start.
    expect(Math.max(...first)).toBeGreaterThan(65_536);
  });

  it('differs between lists (each list has its own key)', () => {
    const a = new IndexPermutation(randomBytes(32), 10_000);
    const b = new IndexPermutation(randomBytes(32), 10_000);
    const seqA = Array.from({ length: 10 }, (_, i) => a.forward(i));
    const seqB = Array.from({ length: 10 }, (_, i) => b.forward(i));
    expect(seqA).not.toEqual(seqB);
  });

  it('reuses the permutation of a key and size, and keeps lists with other keys or sizes apart', () => {
    const key = randomBytes(32);
    const once = IndexPermutation.of(key, 10_000);
    expect(IndexPermutation.of(new Uint8Array(key), 10_000)).toBe(once);
    const fresh = new IndexPermutation(key, 10_000);
    expect(Array.from({ length: 20 }, (_, i) => once.forward(i))).toEqual(
      Array.from({ length: 20 }, (_, i) => fresh.forward(i)),
    );
    expect(IndexPermutation.of(key, 10_001)).not.toBe(once);
    const other = IndexPermutation.of(randomBytes(32), 10_000);
    expect(other).not.toBe(once);
    expect(Array.from({ length: 10 }, (_, i) => other.forward(i))).not.toEqual(
      Array.from({ length: 10 }, (_, i) => once.forward(i)),
    );
  });

  // Values of the construction as first shipped (AES called per round): lists already allocated from keep their
  // indexes whatever way the round function is computed.
  it.each([
    [3, [1, 0, 2, 1, 2]],
    [1000, [746, 199, 213, 344, 344]],
    [131_072, [105_419, 67_375, 48_855, 30_091, 49_614]],
    [10_000_000, [4_542_620, 431_381, 2_564_330, 5_219_114, 2_059_932]],
    [2 ** 30, [453_772_698, 691_577_009, 964_532_718, 815_915_118, 1_026_001_634]],
  ])('maps counters of a fixed key and size %i as it always did', (size, expected) => {
    const permutation = new IndexPermutation(
      Uint8Array.from({ length: 32 }, (_, i) => i),
      size,
    );
    const counters = [0, 1, 2, 999 % size, size - 1];
    expect(counters.map((n) => permutation.forward(n))).toEqual(expected);
    expect(expected.map((index) => permutation.inverse(index))).toEqual(counters);
  });

  it('refuses values outside the domain', () => {
    const permutation = new IndexPermutation(randomBytes(32), 10);
    expect(() => permutation.forward(10)).toThrow(RangeError);
    expect(() => permutation.inverse(-1)).toThrow(RangeError);
  });
});
