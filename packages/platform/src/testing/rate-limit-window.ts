import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Rate limits count in fixed windows aligned to the epoch: before a burst that must fall in one window, wait for the
 * next window if the current one has less than `spareSeconds` left.
 */
export async function roomInRateLimitWindow(windowSeconds: number, spareSeconds = 5): Promise<void> {
  const windowMs = windowSeconds * 1000;
  const leftMs = windowMs - (Date.now() % windowMs);
  if (leftMs < spareSeconds * 1000) await sleep(leftMs + 50);
}
