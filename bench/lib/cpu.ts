import { performance } from 'node:perf_hooks';
import { LatencyHistogram, latencyOf } from './histogram.js';
import type { Measurement } from './types.js';

const isPromise = (value: unknown): value is Promise<void> =>
  value !== undefined && typeof (value as Promise<void>).then === 'function';

/**
 * Calls `fn` back to back on the main thread (one core) for `durationSeconds`, timing each call. A promise
 * returned by `fn` is awaited before the next call; a synchronous `fn` is never awaited, so it pays no
 * microtask per call. With `concurrency` > 1, that many loops run at once (each awaiting its own calls), so that
 * `concurrency` calls are in flight: what concurrent requests look like to a store that batches them.
 */
export async function runCpuLoop(
  fn: () => void | Promise<void>,
  durationSeconds: number,
  concurrency = 1,
  histogram = new LatencyHistogram(),
): Promise<Measurement> {
  const count = histogram.count;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + durationSeconds * 1000;
  let now = started;
  // One loop reuses the previous end time as the next start; concurrent loops each read their own start.
  const loop = async (shared: boolean) => {
    while (now < deadline) {
      const before = shared ? performance.now() : now;
      const pending = fn();
      if (isPromise(pending)) await pending;
      now = performance.now();
      histogram.record(now - before);
    }
  };
  if (concurrency === 1) await loop(false);
  else await Promise.all(Array.from({ length: concurrency }, () => loop(true)));
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  // The histogram may be shared with earlier windows (the harness's measureTargets): this window's calls are those it added.
  const calls = histogram.count - count;
  const elapsedSeconds = (now - started) / 1000;
  return {
    durationSeconds: elapsedSeconds,
    total: calls,
    perSecond: elapsedSeconds > 0 ? calls / elapsedSeconds : 0,
    latencyMs: latencyOf(histogram),
    cpuSeconds,
    cpuUsPerOp: calls > 0 ? (cpuSeconds / calls) * 1e6 : null,
    errors: 0,
    non2xx: 0,
  };
}
