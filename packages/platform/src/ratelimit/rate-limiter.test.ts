import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from './memory-rate-limiter.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';
import { createRateLimiter } from './index.js';

/**
 * Fixed-window rate limiting (issue 2 §12): N requests per window, then refused with an integer Retry-After that
 * is the time left in the window (RFC 6585 §4), and a retry after that time succeeds. Redis shares the counter
 * between replicas and fails open when it is unreachable.
 */

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('MemoryRateLimiter', () => {
  // Windows are aligned to the epoch: 1_700_000_040_000 ms is a multiple of 60 s.
  const windowStart = 1_700_000_040_000;
  const clock = (start: number) => {
    const state = { now: start };
    return { now: () => state.now, set: (ms: number) => (state.now = ms) };
  };

  it('allows the limit, then refuses with the whole seconds left in the window', async () => {
    const time = clock(windowStart + 15_500);
    const limiter = new MemoryRateLimiter(time.now);
    for (let i = 1; i <= 3; i++) {
      expect(await limiter.consume('client-a', 3, 60)).toEqual({
        allowed: true,
        remaining: 3 - i,
        retryAfterSeconds: 45,
      });
    }
    const refused = await limiter.consume('client-a', 3, 60);
    expect(refused).toEqual({ allowed: false, remaining: 0, retryAfterSeconds: 45 });
    expect(Number.isInteger(refused.retryAfterSeconds)).toBe(true);
    time.set(windowStart + 58_000);
    expect(await limiter.consume('client-a', 3, 60)).toEqual({ allowed: false, remaining: 0, retryAfterSeconds: 2 });
    await limiter.close();
  });

  it('answers at least one second at the very end of a window', async () => {
    const time = clock(windowStart + 59_999);
    const limiter = new MemoryRateLimiter(time.now);
    await limiter.consume('k', 1, 60);
    const refused = await limiter.consume('k', 1, 60);
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
  });

  it('allows again in the next window, and a retry after Retry-After succeeds', async () => {
    const time = clock(windowStart + 30_000);
    const limiter = new MemoryRateLimiter(time.now);
    await limiter.consume('k', 2, 60);
    await limiter.consume('k', 2, 60);
    const refused = await limiter.consume('k', 2, 60);
    expect(refused.allowed).toBe(false);
    time.set(windowStart + 30_000 + refused.retryAfterSeconds * 1000);
    expect(await limiter.consume('k', 2, 60)).toEqual({ allowed: true, remaining: 1, retryAfterSeconds: 60 });
  });

  it('counts each key on its own', async () => {
    const limiter = new MemoryRateLimiter(clock(windowStart).now);
    expect((await limiter.consume('a', 1, 10)).allowed).toBe(true);
    expect((await limiter.consume('a', 1, 10)).allowed).toBe(false);
    expect((await limiter.consume('b', 1, 10)).allowed).toBe(true);
  });

  it('is the limiter chosen without a Redis URL', async () => {
    const limiter = createRateLimiter({ redisUrl: undefined, keyPrefix: 'x:' });
    expect(limiter).toBeInstanceOf(MemoryRateLimiter);
    await limiter.close();
  });
});

describe('RedisRateLimiter', () => {
  const prefix = `tessera-test:${randomBytes(6).toString('hex')}:`;
  const opened: RedisRateLimiter[] = [];

  async function limiter(onError: (e: unknown) => void = () => undefined): Promise<RedisRateLimiter> {
    const l = new RedisRateLimiter(REDIS_URL, prefix, onError);
    opened.push(l);
    if (l.redis.status !== 'ready') await once(l.redis, 'ready');
    return l;
  }

  // A window size whose current window has more than ten seconds left, so that a test never straddles two windows.
  // The three sizes share a boundary every six hours: within ten seconds of one, wait for it to pass.
  async function stableWindowSeconds(): Promise<number> {
    for (let attempt = 0; attempt < 2; attempt++) {
      for (const seconds of [3600, 7200, 5400]) {
        const ms = seconds * 1000;
        if (ms - (Date.now() % ms) > 10_000) return seconds;
      }
      await sleep(10_500);
    }
    throw new Error('no stable window');
  }

  afterAll(async () => {
    const [first] = opened;
    if (first && first.redis.status === 'ready') {
      const keys = await first.redis.keys(`${prefix}*`);
      if (keys.length > 0) await first.redis.del(...keys);
    }
    await Promise.all(opened.map((l) => l.close()));
  });

  it('allows the limit, then refuses with an integer Retry-After of at least one second', async () => {
    const errors: unknown[] = [];
    const l = await limiter((e) => errors.push(e));
    const windowSeconds = await stableWindowSeconds();
    for (let i = 1; i <= 3; i++) {
      expect(await l.consume('client-a', 3, windowSeconds)).toMatchObject({ allowed: true, remaining: 3 - i });
    }
    const refused = await l.consume('client-a', 3, windowSeconds);
    expect(refused).toMatchObject({ allowed: false, remaining: 0 });
    expect(Number.isInteger(refused.retryAfterSeconds)).toBe(true);
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(windowSeconds);
    expect(errors).toEqual([]);
  });

  it('answers a Retry-After equal to the time left in the window', async () => {
    const l = await limiter();
    const windowSeconds = await stableWindowSeconds();
    const windowMs = windowSeconds * 1000;
    await l.consume('client-window', 1, windowSeconds);
    const before = Date.now();
    const refused = await l.consume('client-window', 1, windowSeconds);
    const after = Date.now();
    expect(refused.allowed).toBe(false);
    const leftSeconds = (now: number) => Math.ceil(((Math.floor(now / windowMs) + 1) * windowMs - now) / 1000);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(leftSeconds(before));
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(leftSeconds(after));
  });

  it('allows again once Retry-After has passed', async () => {
    const l = await limiter();
    let refused = { allowed: true, retryAfterSeconds: 0 };
    // One-second windows: fill the window until a refusal comes (a window boundary in between just starts over).
    for (let i = 0; i < 20 && refused.allowed; i++) refused = await l.consume('client-retry', 2, 1);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBe(1);
    await sleep(refused.retryAfterSeconds * 1000 + 50);
    expect(await l.consume('client-retry', 2, 1)).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('shares the counter between instances', async () => {
    const a = await limiter();
    const b = await limiter();
    const windowSeconds = await stableWindowSeconds();
    expect(await a.consume('shared', 2, windowSeconds)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await b.consume('shared', 2, windowSeconds)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await a.consume('shared', 2, windowSeconds)).toMatchObject({ allowed: false, remaining: 0 });
    expect(await b.consume('shared', 2, windowSeconds)).toMatchObject({ allowed: false, remaining: 0 });
    expect(await b.consume('other-key', 2, windowSeconds)).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('is the limiter chosen with a Redis URL', async () => {
    const l = createRateLimiter({ redisUrl: REDIS_URL, keyPrefix: prefix });
    expect(l).toBeInstanceOf(RedisRateLimiter);
    opened.push(l as RedisRateLimiter);
  });

  it('fails open and reports the error when Redis is unreachable', async () => {
    const errors: unknown[] = [];
    const down = new RedisRateLimiter('redis://127.0.0.1:1', prefix, (e) => errors.push(e));
    try {
      for (let i = 0; i < 3; i++) {
        expect(await down.consume('client-a', 1, 60)).toEqual({ allowed: true, remaining: 1, retryAfterSeconds: 1 });
      }
      expect(errors).toHaveLength(3);
      expect(errors[0]).toBeInstanceOf(Error);
    } finally {
      await down.close();
    }
  });
});
