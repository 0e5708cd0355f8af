import type { DpopReplayStore } from './dpop-replay-store.js';

export interface MemoryDpopReplayStoreOptions {
  /** Most keys held at once. Default 100 000. */
  maxEntries?: number;
  now?: () => Date;
}

/** Raised when the store is full of unexpired keys: the caller answers 503, never accepts an unchecked proof. */
export class DpopReplayStoreFullError extends Error {
  constructor() {
    super('DPoP replay store is full');
    this.name = 'DpopReplayStoreFullError';
  }
}

/**
 * An in-process replay store for one instance (tests, a single-replica deployment, a client). Bounded: when full
 * it first drops expired keys; if every key is still live it fails closed with DpopReplayStoreFullError rather
 * than evict a live key, which would let that proof be replayed (RFC 9449 §11.1).
 */
export class MemoryDpopReplayStore implements DpopReplayStore {
  private readonly entries = new Map<string, number>();
  private readonly maxEntries: number;
  private readonly now: () => Date;

  constructor(options: MemoryDpopReplayStoreOptions = {}) {
    this.maxEntries = options.maxEntries ?? 100_000;
    if (!Number.isInteger(this.maxEntries) || this.maxEntries < 1) throw new TypeError('maxEntries must be positive');
    this.now = options.now ?? (() => new Date());
  }

  get size(): number {
    return this.entries.size;
  }

  async rememberOnce(key: string, expiresAt: Date): Promise<boolean> {
    const now = this.now().getTime();
    const held = this.entries.get(key);
    if (held !== undefined && held > now) return false;
    if (held === undefined && this.entries.size >= this.maxEntries) {
      this.purgeExpired();
      if (this.entries.size >= this.maxEntries) throw new DpopReplayStoreFullError();
    }
    this.entries.set(key, expiresAt.getTime());
    return true;
  }

  async forget(key: string): Promise<void> {
    this.entries.delete(key);
  }

  /** Drops every expired key; returns how many. */
  purgeExpired(): number {
    const now = this.now().getTime();
    let removed = 0;
    for (const [key, expiresAt] of this.entries) {
      if (expiresAt <= now) {
        this.entries.delete(key);
        removed++;
      }
    }
    return removed;
  }
}
