/** Rate limiting per client (issue 2 §12): 429 rate_limited with an integer Retry-After (RFC 6585 §4). */
export interface RateLimitDecision {
  allowed: boolean;
  remaining: number;
  /** Whole seconds until the window resets (at least 1 when refused). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  consume(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision>;
  /**
   * The same decision at once, for a limiter that keeps its counters in this process: the request middleware
   * then needs no asynchronous step for it. A shared limiter (Redis) leaves it out.
   */
  consumeNow?(key: string, limit: number, windowSeconds: number): RateLimitDecision;
  /**
   * The decision the next `consume` would get, without counting (a lock-out checked before a secret is verified,
   * issue 13 §2). `allowed` is false once `limit` hits were counted in the window.
   */
  peek(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision>;
  /** `peek` at once, for a limiter that keeps its counters in this process (as `consumeNow`). */
  peekNow?(key: string, limit: number, windowSeconds: number): RateLimitDecision;
  close(): Promise<void>;
}
