import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DpopNonceManager } from '../src/index.js';

const START = new Date('2030-01-01T00:00:00.000Z');

describe('DpopNonceManager', () => {
  it('issues one nonce per slot and rotates it with the next slot', () => {
    let now = START;
    const nonces = new DpopNonceManager({ secret: randomBytes(32), slotSeconds: 60, now: () => now });
    const first = nonces.issueNonce();
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    now = new Date(START.getTime() + 59_999);
    expect(nonces.issueNonce()).toBe(first);
    now = new Date(START.getTime() + 60_000);
    expect(nonces.issueNonce()).not.toBe(first);
  });

  it('accepts the current and the previous slot, and nothing older', () => {
    let now = START;
    const nonces = new DpopNonceManager({ secret: randomBytes(32), slotSeconds: 60, now: () => now });
    const issued = nonces.issueNonce();
    expect(nonces.isValid(issued)).toBe(true);
    now = new Date(START.getTime() + 60_000);
    expect(nonces.isValid(issued)).toBe(true);
    now = new Date(START.getTime() + 120_000);
    expect(nonces.isValid(issued)).toBe(false);
  });

  it('does not accept a nonce from the next slot (not yet issued)', () => {
    let now = new Date(START.getTime() + 60_000);
    const nonces = new DpopNonceManager({ secret: randomBytes(32), now: () => now });
    const future = nonces.issueNonce();
    now = START;
    expect(nonces.isValid(future)).toBe(false);
  });

  it('is shared by replicas with the same secret and refused by others', () => {
    const secret = randomBytes(32);
    const a = new DpopNonceManager({ secret, now: () => START });
    const b = new DpopNonceManager({ secret: Buffer.from(secret), now: () => START });
    const c = new DpopNonceManager({ secret: randomBytes(32), now: () => START });
    expect(b.isValid(a.issueNonce())).toBe(true);
    expect(c.isValid(a.issueNonce())).toBe(false);
    expect(a.isValid('')).toBe(false);
  });

  it('requires a secret of at least 32 bytes and a positive slot', () => {
    expect(() => new DpopNonceManager({ secret: randomBytes(31) })).toThrow(TypeError);
    expect(() => new DpopNonceManager({ secret: randomBytes(32), slotSeconds: 0 })).toThrow(TypeError);
  });
});
