import type { DpopReplayStore } from './dpop-replay-store.js';

/** The Redis commands the store needs, as ioredis types them (`SET key value PX ms NX`, `DEL key`). */
export interface RedisSetClient {
  set(key: string, value: string, px: 'PX', milliseconds: number, nx: 'NX'): Promise<'OK' | null>;
  del(key: string): Promise<number>;
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
 * The first call of an event-loop turn is sent at once, as a plain SET: verifyDpopProof checks the proof's
 * signature while it travels, so that one proof at a time does not wait for Redis after its check. The calls that
 * follow in the same turn (the proofs of the other requests that turn read) are sent as one pipeline once the
 * turn's I/O callbacks have run (setImmediate): one write and one round trip for all of them instead of one each.
 * The SETs stay separate commands that Redis runs in order, so the same jti twice in one turn is accepted once, as
 * it is across turns and replicas.
 */
export class RedisDpopReplayStore implements DpopReplayStore {
  private readonly keyPrefix: string;
  private readonly now: () => Date;
  private pending: PendingSet[] = [];
  /** True from a turn's first call until its setImmediate: later calls of the turn are queued for one pipeline. */
  private turnOpen = false;

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
    if (!this.turnOpen) {
      this.turnOpen = true;
      setImmediate(() => this.endTurn());
      return this.setOnce(fullKey, ttlMs);
    }
    return new Promise<boolean>((resolve, reject) => {
      this.pending.push({ key: fullKey, ttlMs, resolve, reject });
    });
  }

  async forget(key: string): Promise<void> {
    await this.redis.del(`${this.keyPrefix}${key}`);
  }

  private async setOnce(key: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(key, '1', 'PX', ttlMs, 'NX')) === 'OK';
  }

  private endTurn(): void {
    this.turnOpen = false;
    const batch = this.pending;
    if (batch.length === 0) return;
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
