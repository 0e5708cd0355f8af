/**
 * Retry schedule: exponential backoff with full jitter ("Exponential Backoff and Jitter", AWS Architecture Blog):
 * attempt n (1-based, the attempt that just failed) waits uniformly in [0, min(cap, base·2^(n-1))], so replicas and
 * destinations recovering together do not retry in lockstep. A delivery older than the maximum age is dead.
 */
export function retryDelayMs(attempt: number, baseMs: number, capMs: number, random: () => number = Math.random) {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 40));
  return Math.floor(random() * ceiling);
}

export type FailureOutcome = { status: 'dead' } | { status: 'failed'; nextAttemptAt: Date };

export function afterFailure(
  input: { attempt: number; createdAt: Date; now: Date },
  options: { retryBaseMs: number; retryCapMs: number; maxAgeMs: number },
  random?: () => number,
): FailureOutcome {
  const deadline = input.createdAt.getTime() + options.maxAgeMs;
  if (input.now.getTime() >= deadline) return { status: 'dead' };
  const next = input.now.getTime() + retryDelayMs(input.attempt, options.retryBaseMs, options.retryCapMs, random);
  // The last try happens at the deadline at the latest; failing then, the delivery is dead.
  return { status: 'failed', nextAttemptAt: new Date(Math.min(next, deadline)) };
}
