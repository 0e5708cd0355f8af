/** Time source; structurally the same as the platform's Clock, so a test can pass its ManualClock. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Seconds since the epoch, as JWT NumericDate values are written (RFC 7519 §2). */
export function epochSeconds(clock: Clock): number {
  return Math.floor(clock.now().getTime() / 1000);
}
