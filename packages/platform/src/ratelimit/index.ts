import { MemoryRateLimiter } from './memory-rate-limiter.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';
import type { RateLimiter } from './rate-limiter.js';

export * from './rate-limiter.js';
export { MemoryRateLimiter, RedisRateLimiter };

/** Shared through Redis when REDIS_URL is set, in process otherwise (issue 2 §12). */
export function createRateLimiter(options: {
  redisUrl?: string | undefined;
  keyPrefix: string;
  onError?: (e: unknown) => void;
}): RateLimiter {
  return options.redisUrl
    ? new RedisRateLimiter(options.redisUrl, options.keyPrefix, options.onError)
    : new MemoryRateLimiter();
}
