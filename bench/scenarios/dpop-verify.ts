import { Redis } from 'ioredis';
import {
  createDpopContext,
  createDpopProof,
  generateDpopKeyPair,
  MemoryDpopReplayStore,
  RedisDpopReplayStore,
  verifyDpopProof,
  type DpopReplayStore,
} from '@tessera/pkce-dpop';
import type { Scenario } from '../lib/types.js';

const URL_ = 'https://token.example.test/token';
const PROOFS = 400_000;

/**
 * Issue 7: DPoP proof verification per second with every RFC 9449 §4.3 check and the jti replay store, against
 * the raw ES256 verification rate of one core (`es256-verify`) measured in the same run; one ES256 signature per
 * proof, so the goal is a ratio of 0.5. Proofs are made before the measurement, each with its own jti.
 */
async function setupWith(store: () => Promise<{ store: DpopReplayStore; close(): Promise<void> }>) {
  const issuer = { method: 'KEY_ALIAS' as const, identifier: 'bench-dpop', signer: await generateDpopKeyPair('ES256') };
  const context = await createDpopContext(issuer);
  const proofs: string[] = [];
  for (let i = 0; i < 2000; i++) {
    proofs.push(
      (await createDpopProof({ issuer, httpMethod: 'POST', httpUrl: URL_, publicJwk: context.publicJwk })).dpopProof,
    );
  }
  const replay = await store();
  let next = 0;
  let verified = 0;
  // 2,000 distinct proofs, each replayed store key made unique by a per-pass namespace taken when the proof is
  // picked (with calls in flight, later picks move on meanwhile): the store sees a new jti every call, as it would
  // under real traffic.
  const namespaced = (pass: number): DpopReplayStore => ({
    rememberOnce: (k, until) => replay.store.rememberOnce(`${pass}:${k}`, until),
    forget: (k) => replay.store.forget(`${pass}:${k}`),
  });
  return {
    fn: async () => {
      const proof = proofs[next % proofs.length]!;
      const replayStore = namespaced(Math.floor(next / proofs.length));
      next++;
      await verifyDpopProof({
        dpopProof: proof,
        httpMethod: 'POST',
        httpUrl: URL_,
        replayStore,
        iatWindowSeconds: 3600,
      });
      verified++;
    },
    async teardown() {
      await replay.close();
      if (verified === 0 || verified > PROOFS * 100) throw new Error('no proof verified');
    },
  };
}

export const dpopVerifyMemory: Scenario = {
  name: 'dpop-verify-memory-store',
  description: 'verifyDpopProof with every RFC 9449 §4.3 check, in-process jti replay store (one replica)',
  kind: 'cpu',
  baseline: 'es256-verify',
  goal: { minRatio: 0.5, text: 'proof verification at least 50% of the raw ES256 verification rate' },
  // Sized for the run: at ~12,000 proofs a second, 12 s of warm-up and measurement remember ~150,000 live jtis,
  // more than the default bound (100,000), at which the store fails closed by design.
  setup: () =>
    setupWith(async () => ({
      store: new MemoryDpopReplayStore({ maxEntries: 2_000_000 }),
      close: async () => undefined,
    })),
};

/** The shared Redis jti replay store of the Redis scenarios, under a prefix of its own per run. */
async function redisStore() {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
  return {
    store: new RedisDpopReplayStore(redis, { keyPrefix: `tessera-bench:${Date.now()}:` }),
    close: async () => void redis.disconnect(),
  };
}

/** Issue 22: per core, the CPU a proof costs this process, Redis round trips included. */
const redisGoal = {
  minRatio: 0.5,
  basis: 'per-core',
  text: 'proof verification per CPU second at least 50% of the raw ES256 verification rate',
} as const;

export const dpopVerifyRedis: Scenario = {
  name: 'dpop-verify-redis-store',
  description: 'the same with the shared Redis jti replay store (replicas), one proof at a time',
  kind: 'cpu',
  baseline: 'es256-verify',
  goal: redisGoal,
  setup: () => setupWith(redisStore),
};

/** Concurrent requests: 32 proofs in flight, whose jti writes of one event-loop turn can share a round trip. */
export const dpopVerifyRedis32: Scenario = {
  name: 'dpop-verify-redis-store-32',
  description: 'the same with the shared Redis jti replay store, 32 proofs in flight',
  kind: 'cpu',
  baseline: 'es256-verify',
  concurrency: 32,
  goal: redisGoal,
  setup: () => setupWith(redisStore),
};
