import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DpopNonceManager } from '../src/index.js';

const START = new Date('2030-01-01T00:00:00.000Z');

describe('DpopNonceManager', () => {
  it('issues one nonce per slot and rotates it with the next slot', async () => {
    let now = START;
    const nonces = new DpopNonceManager({ secret: randomBytes(32), slotSeconds: 60, now: () => now });
    const first = await nonces.issueNonce();
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    now = new Date(START.getTime() + 59_999);
    expect(await nonces.issueNonce()).toBe(first);
    now = new Date(START.getTime() + 60_000);
    expect(await nonces.issueNonce()).not.toBe(first);
  });

  it('accepts the current and the previous slot, and nothing older', async () => {
    let now = START;
    const nonces = new DpopNonceManager({ secret: randomBytes(32), slotSeconds: 60, now: () => now });
    const issued = await nonces.issueNonce();
    expect(await nonces.isValid(issued)).toBe(true);
    now = new Date(START.getTime() + 60_000);
    expect(await nonces.isValid(issued)).toBe(true);
    now = new Date(START.getTime() + 120_000);
    expect(await nonces.isValid(issued)).toBe(false);
  });

  it('does not accept a nonce from the next slot (not yet issued)', async () => {
    let now = new Date(START.getTime() + 60_000);
    const nonces = new DpopNonceManager({ secret: randomBytes(32), now: () => now });
    const future = await nonces.issueNonce();
    now = START;
    expect(await nonces.isValid(future)).toBe(false);
  });

  it('is shared by replicas with the same secret and refused by others', async () => {
    const secret = randomBytes(32);
    const a = new DpopNonceManager({ secret, now: () => START });
    const b = new DpopNonceManager({ secret: Buffer.from(secret), now: () => START });
    const c = new DpopNonceManager({ secret: randomBytes(32), now: () => START });
    expect(await b.isValid(await a.issueNonce())).toBe(true);
    expect(await c.isValid(await a.issueNonce())).toBe(false);
    expect(await a.isValid('')).toBe(false);
  });

  it('binds nonces to a scope: one secret serves several tenants without a nonce crossing over', async () => {
    const secret = randomBytes(32);
    const one = new DpopNonceManager({ secret, scope: 'tenant-a', now: () => START });
    const two = new DpopNonceManager({ secret, scope: 'tenant-b', now: () => START });
    const unscoped = new DpopNonceManager({ secret, now: () => START });
    const issued = await one.issueNonce();
    expect(await one.isValid(issued)).toBe(true);
    expect(await two.isValid(issued)).toBe(false);
    expect(await unscoped.isValid(issued)).toBe(false);
  });

  it('takes a MAC held elsewhere (a key manager) instead of a secret, with the same nonces', async () => {
    const secret = randomBytes(32);
    let calls = 0;
    const external = new DpopNonceManager({
      mac: async (data) => {
        calls++;
        return createHmac('sha256', secret).update(data).digest();
      },
      now: () => START,
    });
    const local = new DpopNonceManager({ secret, now: () => START });
    const issued = await external.issueNonce();
    expect(calls).toBe(1);
    expect(issued).toBe(await local.issueNonce());
    expect(await external.isValid(issued)).toBe(true);
    expect(await external.isValid(await new DpopNonceManager({ secret: randomBytes(32) }).issueNonce())).toBe(false);
  });

  it('requires a secret of at least 32 bytes or a MAC, and a positive slot', () => {
    expect(() => new DpopNonceManager({ secret: randomBytes(31) })).toThrow(TypeError);
    expect(() => new DpopNonceManager({ secret: randomBytes(32), slotSeconds: 0 })).toThrow(TypeError);
    expect(() => new DpopNonceManager({} as never)).toThrow(TypeError);
  });
});
