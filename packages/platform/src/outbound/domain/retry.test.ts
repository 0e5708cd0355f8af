import { describe, expect, it } from 'vitest';
import { afterFailure, retryDelayMs } from './retry.js';

describe('retry schedule (exponential backoff, full jitter)', () => {
  it('draws the delay in [0, min(cap, base·2^(n-1))]', () => {
    expect(retryDelayMs(1, 1000, 60_000, () => 0.999999)).toBe(999);
    expect(retryDelayMs(3, 1000, 60_000, () => 0.5)).toBe(2000);
    expect(retryDelayMs(30, 1000, 60_000, () => 0.5)).toBe(30_000);
    expect(retryDelayMs(5, 1000, 60_000, () => 0)).toBe(0);
    for (let i = 0; i < 200; i++) {
      const d = retryDelayMs(4, 1000, 60_000);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThan(8000);
    }
  });

  const options = { retryBaseMs: 1000, retryCapMs: 60_000, maxAgeMs: 10_000 };
  const createdAt = new Date('2026-01-01T00:00:00Z');

  it('schedules the next attempt, never past the maximum age', () => {
    const early = afterFailure({ attempt: 1, createdAt, now: new Date(createdAt.getTime() + 100) }, options, () => 0.5);
    expect(early).toEqual({ status: 'failed', nextAttemptAt: new Date(createdAt.getTime() + 600) });
    const late = afterFailure({ attempt: 9, createdAt, now: new Date(createdAt.getTime() + 9000) }, options, () => 0.9);
    expect(late).toEqual({ status: 'failed', nextAttemptAt: new Date(createdAt.getTime() + 10_000) });
  });

  it('dead-letters a failure at or past the maximum age', () => {
    expect(afterFailure({ attempt: 3, createdAt, now: new Date(createdAt.getTime() + 10_000) }, options)).toEqual({
      status: 'dead',
    });
  });
});
