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
  // 2,000 distinct proofs, each replayed store key made unique by a per-pass namespace: the store sees a new jti
  // every call, as it would under real traffic.
  const namespaced: DpopReplayStore = {
    rememberOnce: (k, until) => replay.store.rememberOnce(`${Math.floor(next / proofs.length)}:${k}`, until),
  };
  return {
    fn: async () => {
      const proof = proofs[next % proofs.length]!;
      next++;
      await verifyDpopProof({
        dpopProof: proof,
        httpMethod: 'POST',
        httpUrl: URL_,
        replayStore: namespaced,
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

export const dpopVerifyRedis: Scenario = {
  name: 'dpop-verify-redis-store',
  description: 'the same with the shared Redis jti replay store (replicas), one proof at a time',
  kind: 'cpu',
  baseline: 'es256-verify',
  goal: { minRatio: 0.5, text: 'proof verification at least 50% of the raw ES256 verification rate' },
  setup: () =>
    setupWith(async () => {
      const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
      return {
        store: new RedisDpopReplayStore(redis, { keyPrefix: `tessera-bench:${Date.now()}:` }),
        close: async () => void redis.disconnect(),
      };
    }),
};
