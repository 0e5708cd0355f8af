import type { Measurement } from './types.js';

/**
 * One measurement from several consecutive windows of the same load. The machines this runs on are shared: a burst
 * of other work on the host slows every instruction for a second or two, and a single window that catches one
 * reads up to half again the CPU per operation of its neighbours (seen on the two-core development machine: 47 to
 * 83 µs per request for one unchanged server, in windows seconds apart). The rate and the CPU per operation are
 * therefore the median of the windows' (a burst moves one window, not the median), while the counts, the CPU
 * seconds and the latency percentiles (from the windows' shared histogram, by the caller) cover the whole time.
 * Baselines and scenarios are measured the same way, so their ratios stay like for like.
 */
export function combineWindows(windows: readonly Measurement[], latencyMs: Measurement['latencyMs']): Measurement {
  if (windows.length === 0) throw new Error('a measurement needs at least one window');
  if (windows.length === 1) return { ...windows[0]!, latencyMs };
  const sum = (pick: (m: Measurement) => number) => windows.reduce((total, m) => total + pick(m), 0);
  const cpu = windows.map((m) => m.cpuSeconds);
  const cpuKnown = cpu.every((c) => c !== null);
  const perOp = windows.map((m) => m.cpuUsPerOp);
  const mainPerOp = windows.map((m) => m.mainThreadCpuUsPerOp);
  const replicas = windows[0]!.replicas;
  return {
    durationSeconds: sum((m) => m.durationSeconds),
    total: sum((m) => m.total),
    perSecond: median(windows.map((m) => m.perSecond)),
    latencyMs,
    cpuSeconds: cpuKnown ? (cpu as number[]).reduce((a, b) => a + b, 0) : null,
    cpuUsPerOp: perOp.every((c) => c !== null) ? median(perOp as number[]) : null,
    ...(mainPerOp.every((c) => c !== undefined)
      ? { mainThreadCpuUsPerOp: mainPerOp.every((c) => c !== null) ? median(mainPerOp as number[]) : null }
      : {}),
    errors: sum((m) => m.errors),
    non2xx: sum((m) => m.non2xx),
    ...(windows[0]!.connections === undefined ? {} : { connections: windows[0]!.connections }),
    ...(replicas
      ? {
          replicas: {
            count: replicas.count,
            requests: replicas.requests.map((_, i) => sum((m) => m.replicas?.requests[i] ?? 0)),
            cpuSeconds: replicas.cpuSeconds.map((_, i) =>
              windows.every((m) => m.replicas?.cpuSeconds[i] != null) ? sum((m) => m.replicas!.cpuSeconds[i]!) : null,
            ),
          },
        }
      : {}),
    windows: windows.map((m) => ({ perSecond: m.perSecond, cpuUsPerOp: m.cpuUsPerOp })),
  };
}

/**
 * The first and third quartiles (linear interpolation between the closest ranks): the middle half of the values
 * lies between them.
 */
export function quartiles(values: readonly number[]): [number, number] {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => {
    const pos = (sorted.length - 1) * q;
    const low = Math.floor(pos);
    const high = Math.min(low + 1, sorted.length - 1);
    return sorted[low]! + (sorted[high]! - sorted[low]!) * (pos - low);
  };
  return [at(0.25), at(0.75)];
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
