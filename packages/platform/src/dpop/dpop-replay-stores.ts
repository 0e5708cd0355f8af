import {
  RedisDpopReplayStore,
  SqlDpopReplayStore,
  type DpopReplayStore,
  type RedisSetClient,
} from '@tessera/pkce-dpop';
import type { Database } from '../db/index.js';
import { AppError } from '../errors/index.js';
import type { JobDefinition } from '../jobs/index.js';
import type { Clock } from '../observability/clock.js';
import type { Logger } from '../observability/logger.js';

/** The one replay table of every DPoP-checking endpoint (platform migration 0006). */
export const DPOP_REPLAY_TABLE = 'dpop_replay';

export const PURGE_DPOP_REPLAY_JOB = 'platform.dpop-replay.purge-expired';
export const PURGE_DPOP_REPLAY_INTERVAL_SECONDS = 900;

/** A Redis connection as the platform holds it: one that can set a key once, and say when it is connected. */
export interface DpopReplayRedis extends RedisSetClient {
  readonly status: string;
  once(event: 'ready', listener: () => void): unknown;
}

export interface DpopReplayStoresOptions {
  db: Database;
  clock: Clock;
  /** The platform's Redis connection (`redis.url`), or null: then the state is in the `dpop_replay` table. */
  redis: DpopReplayRedis | null;
  /** `redis.keyPrefix`. */
  redisKeyPrefix: string;
}

/**
 * Where the `jti`s of accepted DPoP proofs are remembered (RFC 9449 §11.1), for every endpoint of the deployment
 * that checks proofs (the token service, the external reconciliation API, the OpenID4VCI issuer): one table, or one
 * key space in Redis, shared by every replica. The stores are @tessera/pkce-dpop's; this only chooses and scopes
 * them. A key is pkce-dpop's `dpopReplayKey` (key thumbprint, normalised `htu`, `jti`) within the tenant.
 *
 * Every `rememberOnce` is its own short unit of work: call it before, never inside, a tenant unit of work (the
 * embedded database has one connection). A store that cannot record a key refuses the proof with 503 rather than
 * accept it unchecked (fail closed).
 */
export class DpopReplayStores {
  private readonly byTenant = new Map<string, DpopReplayStore>();
  private readonly sweeper: SqlDpopReplayStore | null;

  constructor(private readonly options: DpopReplayStoresOptions) {
    this.sweeper = options.redis
      ? null
      : new SqlDpopReplayStore(
          { query: (text, params) => options.db.withPlatform((sql) => sql.query(text, params)) },
          { table: DPOP_REPLAY_TABLE, now: () => options.clock.now() },
        );
  }

  /**
   * The same state read with another clock: a context whose clock a test moves by hand keeps the store's notion of
   * "expired" in step with the `iat` checks it makes.
   */
  withClock(clock: Clock): DpopReplayStores {
    return new DpopReplayStores({ ...this.options, clock });
  }

  /** True when the state is in Redis (which expires its keys itself), false for the SQL table. */
  get inRedis(): boolean {
    return this.options.redis !== null;
  }

  /** The replay store of one tenant's endpoints. */
  forTenant(tenantId: string): DpopReplayStore {
    let store = this.byTenant.get(tenantId);
    if (!store) {
      store = new FailClosed(this.create(tenantId));
      this.byTenant.set(tenantId, store);
    }
    return store;
  }

  /** Deletes expired rows of every tenant (SQL only; Redis expires keys itself); answers how many. */
  async purgeExpired(): Promise<number> {
    return this.sweeper ? this.sweeper.purgeExpired() : 0;
  }

  /** With Redis, waits (at most `timeoutMs`) until the connection is ready, so the first proofs are not refused. */
  async ready(timeoutMs = 5000): Promise<void> {
    const redis = this.options.redis;
    if (!redis || redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      redis.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private create(tenantId: string): DpopReplayStore {
    const { db, clock, redis, redisKeyPrefix } = this.options;
    const now = () => clock.now();
    if (redis) return new RedisDpopReplayStore(redis, { keyPrefix: `${redisKeyPrefix}dpop:jti:${tenantId}:`, now });
    // One statement, atomic by itself: no transaction needed around it. The tenant column is the row's default.
    return new SqlDpopReplayStore(
      { query: (text, params) => db.withTenantSession(tenantId, (sql) => sql.query(text, params)) },
      { table: DPOP_REPLAY_TABLE, scopeColumn: 'tenant_id', now },
    );
  }
}

/** RFC 9449 §11.1: a proof whose `jti` cannot be recorded is not accepted; the caller answers 503. */
class FailClosed implements DpopReplayStore {
  constructor(private readonly inner: DpopReplayStore) {}

  async rememberOnce(key: string, expiresAt: Date): Promise<boolean> {
    try {
      return await this.inner.rememberOnce(key, expiresAt);
    } catch (cause) {
      throw new AppError('service_unavailable', 'DPoP replay protection is unavailable.', { cause });
    }
  }

  forget(key: string): Promise<void> {
    return this.inner.forget(key);
  }
}

/** Removes the rows whose proofs can no longer pass the `iat` check (the store already ignores them). */
export function purgeDpopReplayJob(stores: DpopReplayStores, logger: Logger): JobDefinition {
  return {
    name: PURGE_DPOP_REPLAY_JOB,
    intervalSeconds: PURGE_DPOP_REPLAY_INTERVAL_SECONDS,
    critical: false,
    async run() {
      const purged = await stores.purgeExpired();
      logger.info({ job: PURGE_DPOP_REPLAY_JOB, purged }, 'expired DPoP proof records purged');
    },
  };
}
