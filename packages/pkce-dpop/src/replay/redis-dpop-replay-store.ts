import type { DpopReplayStore } from './dpop-replay-store.js';

/** The one Redis command the store needs, as ioredis types it (`SET key value PX ms NX`). */
export interface RedisSetClient {
  set(key: string, value: string, px: 'PX', milliseconds: number, nx: 'NX'): Promise<'OK' | null>;
  /**
   * ioredis: a pipeline, its commands written together and answered in one round trip. With it, the calls of one
   * event-loop turn share a pipeline; without it, every call is its own round trip.
   */
  pipeline?(): RedisSetPipeline;
}

/** The part of an ioredis pipeline the store uses: queued SETs, then one exec with one [error, reply] each. */
export interface RedisSetPipeline {
  set(key: string, value: string, px: 'PX', milliseconds: number, nx: 'NX'): unknown;
  exec(): Promise<[Error | null, unknown][] | null>;
}

export interface RedisDpopReplayStoreOptions {
  /** Prefix of every key. Default "dpop:jti:". */
  keyPrefix?: string;
  now?: () => Date;
}

interface PendingSet {
  key: string;
  ttlMs: number;
  resolve(first: boolean): void;
  reject(error: unknown): void;
}

/**
 * A replay store shared by every replica: `SET key 1 PX <ms> NX` is atomic, answers OK only to the first writer,
 * and Redis drops the key when the window has passed (RFC 9449 §11.1).
 *
 * Auto-pipelining: the calls made during one event-loop turn (the proofs of the requests that turn read) are sent
 * as one pipeline once the turn's I/O callbacks have run (setImmediate), one write and one round trip instead of
 * one each. The SETs stay separate commands that Redis runs in order, so the same jti twice in one batch is
 * accepted once, as it is across batches and replicas. A lone call goes as a plain SET.
 */
export class RedisDpopReplayStore implements DpopReplayStore {
  private readonly keyPrefix: string;
  private readonly now: () => Date;
  private pending: PendingSet[] = [];

  constructor(
    private readonly redis: RedisSetClient,
    options: RedisDpopReplayStoreOptions = {},
  ) {
    this.keyPrefix = options.keyPrefix ?? 'dpop:jti:';
    this.now = options.now ?? (() => new Date());
  }

  rememberOnce(key: string, expiresAt: Date): Promise<boolean> {
    const ttlMs = Math.max(1, expiresAt.getTime() - this.now().getTime());
    const fullKey = `${this.keyPrefix}${key}`;
    if (!this.redis.pipeline) return this.setOnce(fullKey, ttlMs);
    return new Promise<boolean>((resolve, reject) => {
      this.pending.push({ key: fullKey, ttlMs, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
  }

  private async setOnce(key: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(key, '1', 'PX', ttlMs, 'NX')) === 'OK';
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 1) {
      const only = batch[0]!;
      this.setOnce(only.key, only.ttlMs).then(only.resolve, only.reject);
      return;
    }
    const pipeline = this.redis.pipeline!();
    for (const call of batch) pipeline.set(call.key, '1', 'PX', call.ttlMs, 'NX');
    pipeline.exec().then(
      (replies) => {
        batch.forEach((call, i) => {
          const reply = replies?.[i];
          if (!reply) call.reject(new Error('Redis answered no reply to a SET of the pipeline'));
          else if (reply[0]) call.reject(reply[0]);
          else call.resolve(reply[1] === 'OK');
        });
      },
      (error: unknown) => {
        for (const call of batch) call.reject(error);
      },
    );
  }
}
