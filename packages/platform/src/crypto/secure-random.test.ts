import { describe, expect, it } from 'vitest';
import { secureRandomBytes, secureRandomToken } from './secure-random.js';

describe('secureRandomBytes', () => {
  it('gives the length asked, within and beyond the pooled sizes', () => {
    for (const length of [0, 1, 12, 16, 32, 256, 257, 5000]) expect(secureRandomBytes(length)).toHaveLength(length);
  });

  it('never hands out the same bytes twice (10,000 values of 16 bytes, across refills of the block)', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) seen.add(secureRandomBytes(16).toString('hex'));
    expect(seen.size).toBe(10_000);
  });

  it("a caller's bytes stay as they were when the block is refilled and handed out again", () => {
    const mine = secureRandomBytes(32);
    const copy = Buffer.from(mine);
    for (let i = 0; i < 1_000; i++) secureRandomBytes(32); // several refills of the 4 KiB block
    expect(mine.equals(copy)).toBe(true);
  });

  it('bytes are spread evenly (chi-square over 256 KiB: no zeroed or repeated stretches handed out)', () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 8_192; i++) for (const b of secureRandomBytes(32)) counts[b]!++;
    const expected = (8_192 * 32) / 256;
    const chiSquare = counts.reduce((sum, c) => sum + (c - expected) ** 2 / expected, 0);
    // 255 degrees of freedom: the 99.999th percentile is about 373.
    expect(chiSquare).toBeLessThan(373);
  });

  it('refuses a length that is not a whole number >= 0', () => {
    for (const bad of [-1, 1.5, Number.NaN]) expect(() => secureRandomBytes(bad)).toThrow(RangeError);
  });
});

describe('secureRandomToken', () => {
  it('is base64url without padding, of the length the bytes give', () => {
    expect(secureRandomToken(32)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(secureRandomToken(16)).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(secureRandomToken(300), 'base64url')).toHaveLength(300);
  });

  it('never repeats (10,000 tokens of 16 bytes)', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) seen.add(secureRandomToken(16));
    expect(seen.size).toBe(10_000);
  });

  it('refuses an empty or fractional length', () => {
    for (const bad of [0, -3, 2.5]) expect(() => secureRandomToken(bad)).toThrow(RangeError);
  });
});
