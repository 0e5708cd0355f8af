import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryDpopReplayStore } from '../src/index.js';
import { RedisDpopReplayStore, verifyDpopProof } from '../src/index.js';
import { signProof, testKey } from './support/proofs.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const START = new Date('2030-01-01T00:00:00.000Z');
const later = (seconds: number) => new Date(START.getTime() + seconds * 1000);

describe('RedisDpopReplayStore (real Redis)', () => {
  let redis: Redis;
  const keyPrefix = `tessera-test:dpop:${randomBytes(6).toString('hex')}:`;

  beforeAll(() => {
    redis = new Redis(REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    const keys = await redis.keys(`${keyPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('answers true once per key and sets the expiry with PX', async () => {
    const store = new RedisDpopReplayStore(redis, { keyPrefix, now: () => START });
    expect(await store.rememberOnce('k1', later(66))).toBe(true);
    expect(await store.rememberOnce('k1', later(66))).toBe(false);
    const ttl = await redis.pttl(`${keyPrefix}k1`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(66_000);
  });

  it('forgets a key once Redis has expired it', async () => {
    const store = new RedisDpopReplayStore(redis, { keyPrefix, now: () => START });
    expect(await store.rememberOnce('k2', later(66))).toBe(true);
    // What Redis does when the PX time has passed, done at once instead of waiting.
    await redis.del(`${keyPrefix}k2`);
    expect(await store.rememberOnce('k2', later(66))).toBe(true);
  });

  it('forgets a key on request: its next call answers true, and only that key is dropped', async () => {
    const store = new RedisDpopReplayStore(redis, { keyPrefix, now: () => START });
    expect(await store.rememberOnce('f1', later(66))).toBe(true);
    expect(await store.rememberOnce('f2', later(66))).toBe(true);
    await store.forget('f1');
    expect(await redis.exists(`${keyPrefix}f1`)).toBe(0);
    expect(await store.rememberOnce('f1', later(66))).toBe(true);
    expect(await store.rememberOnce('f2', later(66))).toBe(false);
  });

  it('answers true to exactly one of many concurrent calls from separate connections', async () => {
    const other = new Redis(REDIS_URL);
    try {
      const stores = [redis, other].map((client) => new RedisDpopReplayStore(client, { keyPrefix, now: () => START }));
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) => stores[i % 2]!.rememberOnce('race', later(66))),
      );
      expect(answers.filter(Boolean)).toHaveLength(1);
    } finally {
      await other.quit();
    }
  });

  /** The client, counting the plain SETs and the pipelines the store sends through it. */
  const counted = () => {
    const counts = { sets: 0, pipelines: 0 };
    const client = {
      del: (key: string) => redis.del(key),
      set: (...args: Parameters<Redis['set']>) => {
        counts.sets++;
        return (redis.set as (...a: unknown[]) => Promise<'OK' | null>)(...args);
      },
      pipeline: () => {
        counts.pipelines++;
        return redis.pipeline();
      },
    };
    return { client, counts };
  };

  it("sends a turn's first call at once and the rest of the turn as one pipeline: of a jti replayed in it, one is accepted", async () => {
    const { client, counts } = counted();
    const store = new RedisDpopReplayStore(client as never, { keyPrefix, now: () => START });
    const keys = Array.from({ length: 32 }, (_, i) => (i % 4 === 0 ? 'batch-replayed' : `batch-${i}`));
    const answers = await Promise.all(keys.map((k) => store.rememberOnce(k, later(66))));
    expect(counts).toEqual({ sets: 1, pipelines: 1 });
    expect(answers.filter((a, i) => a && keys[i] === 'batch-replayed')).toHaveLength(1);
    // Every other jti is new and accepted, in its own place in the answers.
    expect(answers.filter((a, i) => a && keys[i] !== 'batch-replayed')).toHaveLength(24);
    // The first call, sent alone before the pipeline, is the one accepted.
    expect(answers[0]).toBe(true);
    // A later turn: the batch's keys are remembered, and a lone call is a plain SET.
    expect(await store.rememberOnce('batch-1', later(66))).toBe(false);
    expect(counts).toEqual({ sets: 2, pipelines: 1 });
    const ttl = await redis.pttl(`${keyPrefix}batch-5`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(66_000);
  });

  it('fails every call of a batch whose pipeline fails, and keeps working for the next', async () => {
    const broken = new Redis(REDIS_URL, { maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true });
    const store = new RedisDpopReplayStore(broken, { keyPrefix, now: () => START });
    const answers = await Promise.allSettled([1, 2, 3].map((i) => store.rememberOnce(`broken-${i}`, later(66))));
    expect(answers.map((a) => a.status)).toEqual(['rejected', 'rejected', 'rejected']);
    // The failed batch made the lazy client connect; once it is ready, the store's next batch goes through.
    if (broken.status !== 'ready') await new Promise((resolve) => broken.once('ready', resolve));
    try {
      expect(await Promise.all([1, 2].map((i) => store.rememberOnce(`broken-${i}`, later(66))))).toEqual([true, true]);
    } finally {
      await broken.quit();
    }
  });

  it('rejects a replayed proof across two verifier instances sharing Redis', async () => {
    const key = await testKey();
    const now = new Date();
    const proof = await signProof(
      key.privateKey,
      { typ: 'dpop+jwt', alg: 'ES256', jwk: key.publicJwk },
      {
        jti: randomBytes(12).toString('base64url'),
        htm: 'GET',
        htu: 'https://rs.example/x',
        iat: Math.floor(now.getTime() / 1000),
      },
    );
    const verify = (replayStore: RedisDpopReplayStore | MemoryDpopReplayStore) =>
      verifyDpopProof({ dpopProof: proof, httpMethod: 'GET', httpUrl: 'https://rs.example/x', replayStore, now });
    await expect(verify(new RedisDpopReplayStore(redis, { keyPrefix }))).resolves.toBeDefined();
    await expect(verify(new RedisDpopReplayStore(redis, { keyPrefix }))).rejects.toMatchObject({
      reason: 'replayed_jti',
    });
  });
});
