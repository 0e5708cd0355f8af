import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashToken, newOpaqueToken } from './random.js';

describe('opaque tokens', () => {
  it('are 256 random bits in base64url, never repeated across refills of the pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const token = newOpaqueToken();
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
      seen.add(token);
    }
    expect(seen.size).toBe(1000);
  });

  it('are stored as the base64url SHA-256 of their text', () => {
    const token = newOpaqueToken();
    expect(hashToken(token)).toBe(createHash('sha256').update(token).digest('base64url'));
    expect(hashToken('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
  });
});
