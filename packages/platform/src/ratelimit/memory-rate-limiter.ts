import type { RateLimitDecision, RateLimiter } from './rate-limiter.js';

/**
 * Fixed-window counter in process memory: the default without Redis (one replica). Windows are aligned to the
 * epoch so that Retry-After is the time to the next window.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { window: number; count: number }>();
  private sweeps = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async consume(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    return this.consumeNow(key, limit, windowSeconds);
  }

  consumeNow(key: string, limit: number, windowSeconds: number): RateLimitDecision {
    const nowMs = this.now();
    const windowMs = windowSeconds * 1000;
    const window = Math.floor(nowMs / windowMs);
    let entry = this.windows.get(key);
    if (!entry || entry.window !== window) {
      entry = { window, count: 0 };
      this.windows.set(key, entry);
      if (++this.sweeps % 1024 === 0) this.sweep(window);
    }
    entry.count++;
    const retryAfterSeconds = Math.max(1, Math.ceil(((window + 1) * windowMs - nowMs) / 1000));
    return { allowed: entry.count <= limit, remaining: Math.max(0, limit - entry.count), retryAfterSeconds };
  }

  async peek(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    return this.peekNow(key, limit, windowSeconds);
  }

  peekNow(key: string, limit: number, windowSeconds: number): RateLimitDecision {
    const nowMs = this.now();
    const windowMs = windowSeconds * 1000;
    const window = Math.floor(nowMs / windowMs);
    const entry = this.windows.get(key);
    const count = entry && entry.window === window ? entry.count : 0;
    const retryAfterSeconds = Math.max(1, Math.ceil(((window + 1) * windowMs - nowMs) / 1000));
    return { allowed: count < limit, remaining: Math.max(0, limit - count), retryAfterSeconds };
  }

  private sweep(current: number): void {
    for (const [k, v] of this.windows) if (v.window < current) this.windows.delete(k);
  }

  async close(): Promise<void> {
    this.windows.clear();
  }
}
