import { Redis } from 'ioredis';
import type { RateLimitDecision, RateLimiter } from './rate-limiter.js';

// INCR and set the expiry on the first hit, atomically; answers the count and the milliseconds left.
const SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
return {n, ttl}
`;

/**
 * Fixed-window counter shared by all replicas through Redis (when REDIS_URL is set). If Redis is unreachable the
 * limiter lets requests through (fails open) and says so in the log: rate limiting protects capacity, it is not
 * an authorization control, and refusing all traffic when the cache is down would turn a degraded cache into an
 * outage. docs/decisions.md.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix: string,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    this.redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: false });
    this.redis.on('error', () => undefined);
    this.redis.defineCommand('tesseraRateLimit', { numberOfKeys: 1, lua: SCRIPT });
  }

  async consume(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    const nowMs = Date.now();
    const windowMs = windowSeconds * 1000;
    const window = Math.floor(nowMs / windowMs);
    // Retry-After is the time left in the window (the key itself lives a whole window after its first hit).
    const resetMs = (window + 1) * windowMs - nowMs;
    try {
      const [count] = (await (
        this.redis as unknown as { tesseraRateLimit(k: string, ms: number): Promise<[number, number]> }
      ).tesseraRateLimit(`${this.prefix}rl:${key}:${window}`, windowSeconds * 1000)) as [number, number];
      return {
        allowed: count <= limit,
        remaining: Math.max(0, limit - count),
        retryAfterSeconds: Math.max(1, Math.ceil(resetMs / 1000)),
      };
    } catch (error) {
      this.onError(error);
      return { allowed: true, remaining: limit, retryAfterSeconds: 1 };
    }
  }

  async peek(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    const nowMs = Date.now();
    const windowMs = windowSeconds * 1000;
    const window = Math.floor(nowMs / windowMs);
    const retryAfterSeconds = Math.max(1, Math.ceil(((window + 1) * windowMs - nowMs) / 1000));
    try {
      const count = Number((await this.redis.get(`${this.prefix}rl:${key}:${window}`)) ?? 0);
      return { allowed: count < limit, remaining: Math.max(0, limit - count), retryAfterSeconds };
    } catch (error) {
      this.onError(error);
      return { allowed: true, remaining: limit, retryAfterSeconds: 1 };
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
