import type { DpopReplayStore } from './dpop-replay-store.js';

/** The one Redis command the store needs, as ioredis types it (`SET key value PX ms NX`). */
export interface RedisSetClient {
  set(key: string, value: string, px: 'PX', milliseconds: number, nx: 'NX'): Promise<'OK' | null>;
}

export interface RedisDpopReplayStoreOptions {
  /** Prefix of every key. Default "dpop:jti:". */
  keyPrefix?: string;
  now?: () => Date;
}

/**
 * A replay store shared by every replica: `SET key 1 PX <ms> NX` is atomic, answers OK only to the first writer,
 * and Redis drops the key when the window has passed (RFC 9449 §11.1).
 */
export class RedisDpopReplayStore implements DpopReplayStore {
  private readonly keyPrefix: string;
  private readonly now: () => Date;

  constructor(
    private readonly redis: RedisSetClient,
    options: RedisDpopReplayStoreOptions = {},
  ) {
    this.keyPrefix = options.keyPrefix ?? 'dpop:jti:';
    this.now = options.now ?? (() => new Date());
  }

  async rememberOnce(key: string, expiresAt: Date): Promise<boolean> {
    const ttlMs = Math.max(1, expiresAt.getTime() - this.now().getTime());
    const result = await this.redis.set(`${this.keyPrefix}${key}`, '1', 'PX', ttlMs, 'NX');
    return result === 'OK';
  }
}
