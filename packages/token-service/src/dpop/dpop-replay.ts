import { RedisDpopReplayStore, type DpopReplayStore, type SqlDpopReplayStore } from '@tessera/pkce-dpop';
import { AppError, RedisRateLimiter, type Platform } from '@tessera/platform';
import { sqlDpopReplayStore } from '../storage/dpop-replay-store.js';

export interface DpopReplay {
  store: DpopReplayStore;
  /** Set when the state is in SQL: the purge job removes expired rows (Redis expires its keys itself). */
  sql: SqlDpopReplayStore | null;
  /** Set when the state is in Redis: waits (bounded) until the connection is ready. */
  ready(): Promise<void>;
}

/** The replay store refuses service rather than accept a proof it cannot record (RFC 9449 §11.1: fail closed). */
class FailClosedReplayStore implements DpopReplayStore {
  constructor(private readonly inner: DpopReplayStore) {}

  async rememberOnce(key: string, expiresAt: Date): Promise<boolean> {
    try {
      return await this.inner.rememberOnce(key, expiresAt);
    } catch (cause) {
      throw new AppError('service_unavailable', 'DPoP replay protection is unavailable.', { cause });
    }
  }
}

/**
 * Where the `jti`s of accepted proofs are kept (RFC 9449 §11.1), shared by every replica: Redis when the platform
 * has one (`redis.url`; its connection is reused), else the `oauth_dpop_replay` table of the platform database.
 */
export function createDpopReplay(platform: Platform, now: () => Date): DpopReplay {
  const limiter = platform.rateLimiter;
  if (limiter instanceof RedisRateLimiter) {
    const redis = limiter.redis;
    const store = new RedisDpopReplayStore(redis, { keyPrefix: `${platform.config.redis.keyPrefix}dpop:jti:`, now });
    return {
      store: new FailClosedReplayStore(store),
      sql: null,
      ready: async () => {
        if (redis.status === 'ready') return;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 5000);
          redis.once('ready', () => {
            clearTimeout(timer);
            resolve();
          });
        });
      },
    };
  }
  const sql = sqlDpopReplayStore(platform.db, now);
  return { store: new FailClosedReplayStore(sql), sql, ready: async () => undefined };
}
