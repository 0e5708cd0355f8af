import type { Measurement, ScenarioResult } from './types.js';

/**
 * Of a confirmed baseline's measurements (Scenario.confirm), the one ratios are read against: the stricter, i.e. the
 * lowest CPU per operation when every measurement has CPU figures (per-core goals), else the highest rate. A
 * baseline measured slow makes every ratio against it look better; the stricter measurement never does.
 */
export function stricterMeasurement(measurements: readonly Measurement[]): number {
  if (measurements.length === 0) throw new Error('a confirmation needs at least one measurement');
  const cpu = measurements.map((m) => m.cpuUsPerOp);
  let best = 0;
  for (let i = 1; i < measurements.length; i++) {
    const better = cpu.every((c) => c !== null)
      ? cpu[i]! < cpu[best]!
      : measurements[i]!.perSecond > measurements[best]!.perSecond;
    if (better) best = i;
  }
  return best;
}

const fmt = (m: Measurement) =>
  `${m.cpuUsPerOp === null ? '-' : m.cpuUsPerOp.toFixed(1)} us/op at ${Math.round(m.perSecond).toLocaleString('en-US')}/s`;

/** One line per confirmed baseline, printed under the table: both figures and which one the ratios use. */
export function formatConfirmations(rows: readonly ScenarioResult[]): string[] {
  return rows
    .filter((r) => r.confirmation)
    .map((r) => {
      const { measurements, used } = r.confirmation!;
      const [first, ...later] = measurements;
      const order = used === 0 ? 'the first' : 'the one at the end';
      return `baseline ${r.name} measured at the start (${fmt(first!)}) and at the end (${later.map(fmt).join(', ')}); ratios read against ${order}`;
    });
}
