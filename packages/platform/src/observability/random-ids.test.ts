import { describe, expect, it } from 'vitest';
import { randomHex, randomUuid } from './random-ids.js';

describe('random ids', () => {
  it('gives version 4 UUIDs of the RFC 9562 variant, all distinct across pool refills', () => {
    const seen = new Set<string>();
    // 4 KiB of pool is 256 UUIDs: this crosses many refills.
    for (let i = 0; i < 5000; i++) {
      const id = randomUuid();
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(5000);
  });

  it('gives hex strings of the requested length, distinct, mixed with UUIDs across refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 3000; i++) {
      const trace = randomHex(16);
      const span = randomHex(8);
      randomUuid();
      expect(trace).toMatch(/^[0-9a-f]{32}$/);
      expect(span).toMatch(/^[0-9a-f]{16}$/);
      seen.add(trace);
    }
    expect(seen.size).toBe(3000);
  });

  it('uses every variant digit (the two low bits are random)', () => {
    const variants = new Set<string>();
    for (let i = 0; i < 400; i++) variants.add(randomUuid()[19]!);
    expect([...variants].sort()).toEqual(['8', '9', 'a', 'b']);
  });
});
