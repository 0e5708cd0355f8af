import { RedisRateLimiter, type Clock, type Platform } from '@tessera/platform';
import {
  RedisDpopReplayStore,
  SqlDpopReplayStore,
  type DpopReplayStore,
  type RedisSetClient,
} from '@tessera/pkce-dpop';

/** The replay table of the API's DPoP proofs (migration bridge/0003_reconciliation). */
export const DPOP_REPLAY_TABLE = 'reconciliation_dpop_replay';

/**
 * Where the `jti`s of accepted DPoP proofs are remembered (RFC 9449 §11.1), shared by every replica: Redis when
 * the platform has one (`redis.url`; the rate limiter's connection is reused), else the SQL table of this
 * context's migration, on PostgreSQL or the embedded database.
 */
export function createDpopReplayStore(
  platform: Platform,
  clock: Clock,
): DpopReplayStore & { purgeExpired?(): Promise<number> } {
  const now = () => clock.now();
  if (platform.config.redis.url && platform.rateLimiter instanceof RedisRateLimiter) {
    return new RedisDpopReplayStore(platform.rateLimiter.redis as unknown as RedisSetClient, {
      keyPrefix: `${platform.config.redis.keyPrefix}reconciliation:dpop:`,
      now,
    });
  }
  return new SqlDpopReplayStore(
    { query: (text, params) => platform.db.withPlatform((sql) => sql.query(text, params)) },
    { table: DPOP_REPLAY_TABLE, now },
  );
}
