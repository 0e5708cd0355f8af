import { cpus } from 'node:os';
import type { Measurement, RunOptions, RunReport, Scenario, ScenarioResult } from './types.js';

/** Share of failed requests (connection errors, timeouts, non-2xx) above which a measurement is not trusted. */
export const MAX_FAILURE_SHARE = 0.001;

/** Why a measurement cannot be trusted, or null. A load test of error responses measures the wrong path. */
export function measurementProblem(m: Measurement): string | null {
  const failed = m.errors + m.non2xx;
  const attempts = m.total + m.errors;
  if (attempts === 0) return 'no request or call completed';
  if (failed / attempts > MAX_FAILURE_SHARE) {
    return `${m.non2xx} non-2xx responses and ${m.errors} connection errors out of ${attempts} (over ${MAX_FAILURE_SHARE * 100}%)`;
  }
  return null;
}

/**
 * Throughput ratio (scenario / baseline), per-core ratio (operations per CPU second, scenario / baseline, i.e.
 * baseline CPU per operation over the scenario's) and p99 ratio (scenario p99 / baseline p99). The p99 ratio is
 * given only between scenarios of the same kind: a request's latency and a function call's are not comparable.
 */
export function computeRatio(
  m: Measurement,
  baseline: Measurement,
  sameKind: boolean,
): { throughput: number; perCore: number | null; p99: number | null } | null {
  if (!(baseline.perSecond > 0)) return null;
  const perCore = m.cpuUsPerOp && baseline.cpuUsPerOp ? baseline.cpuUsPerOp / m.cpuUsPerOp : null;
  return {
    throughput: m.perSecond / baseline.perSecond,
    perCore,
    p99: sameKind && baseline.latencyMs.p99 > 0 ? m.latencyMs.p99 / baseline.latencyMs.p99 : null,
  };
}

/** The ratio a goal is judged on, or null when it cannot be computed. */
export function goalRatio(row: Pick<ScenarioResult, 'ratio' | 'goal'>): number | null {
  if (!row.ratio || !row.goal) return null;
  return row.goal.basis === 'per-core' ? row.ratio.perCore : row.ratio.throughput;
}

/** The result row of one scenario, given its measurement (or the error that prevented it) and its baseline's row. */
export function evaluate(
  scenario: Scenario,
  outcome: { measurement: Measurement } | { error: string },
  baseline: ScenarioResult | null,
): ScenarioResult {
  const row: ScenarioResult = {
    name: scenario.name,
    description: scenario.description,
    kind: scenario.kind,
    unit: scenario.kind === 'http' ? 'req/s' : 'ops/s',
    baseline: scenario.baseline ?? null,
    measurement: 'measurement' in outcome ? outcome.measurement : null,
    ratio: null,
    goal: scenario.goal ? { ...scenario.goal, met: null } : null,
    status: scenario.goal ? 'ERROR' : 'NO GOAL',
    error: 'error' in outcome ? outcome.error : null,
  };
  if (row.measurement) row.error = measurementProblem(row.measurement);
  if (row.error) {
    row.status = 'ERROR';
    return row;
  }
  if (scenario.baseline) {
    const base = baseline?.measurement && !baseline.error ? baseline.measurement : null;
    row.ratio = base ? computeRatio(row.measurement!, base, baseline!.kind === scenario.kind) : null;
    if (!row.ratio) {
      if (row.goal) row.error = `baseline "${scenario.baseline}" has no usable figures`;
      return row;
    }
  }
  if (row.goal && row.ratio) {
    const value = goalRatio(row);
    if (value === null) {
      row.error = 'no CPU figures for the per-core ratio of the goal (http servers: Linux /proc only)';
      return row;
    }
    row.goal.met = value >= row.goal.minRatio;
    row.status = row.goal.met ? 'PASS' : 'MISS';
  }
  return row;
}

const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US');
const fmtMs = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n >= 1 ? n.toFixed(2) : n.toFixed(3));
const fmtPct = (n: number) => `${(n * 100).toFixed(1)}%`;

/** The report table; every cell is plain ASCII so that it survives any terminal and log. */
export function formatTable(rows: ScenarioResult[]): string {
  const header = [
    'scenario',
    'kind',
    'throughput',
    'p50 ms',
    'p99 ms',
    'cpu us/op',
    'baseline',
    'ratio',
    'per-core',
    'p99 ratio',
    'goal',
    'result',
  ];
  const right = new Set([2, 3, 4, 5, 7, 8, 9]);
  const cells = rows.map((r) => {
    const m = r.measurement;
    return [
      // A row measured on several replicas says so: its CPU per request is the sum over them.
      m?.replicas ? `${r.name} x${m.replicas.count}` : r.name,
      r.kind,
      m ? `${fmtInt(m.perSecond)} ${r.unit}` : '-',
      m ? fmtMs(m.latencyMs.p50) : '-',
      m ? fmtMs(m.latencyMs.p99) : '-',
      m?.cpuUsPerOp != null ? fmtMs(m.cpuUsPerOp) : '-',
      r.baseline ?? '-',
      r.ratio ? fmtPct(r.ratio.throughput) : '-',
      r.ratio?.perCore != null ? fmtPct(r.ratio.perCore) : '-',
      r.ratio?.p99 != null ? `${r.ratio.p99.toFixed(2)}x` : '-',
      r.goal ? `>= ${fmtPct(r.goal.minRatio)}${r.goal.basis === 'per-core' ? ' per-core' : ''}` : '-',
      r.status === 'NO GOAL' ? '-' : r.status,
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((v, i) => (right.has(i) ? v.padStart(widths[i]!) : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}

/** Lines printed under the table for every MISS and ERROR, loud enough to be seen in a CI log. */
export function formatAlerts(rows: ScenarioResult[]): string[] {
  const out: string[] = [];
  for (const r of rows) {
    if (r.status === 'MISS') {
      const basis = r.goal!.basis === 'per-core' ? 'per-core rate' : 'throughput';
      out.push(
        `!!! MISS  ${r.name}: ${fmtPct(goalRatio(r)!)} of ${r.baseline}'s ${basis}, goal >= ${fmtPct(r.goal!.minRatio)} (${r.goal!.text})`,
      );
    } else if (r.status === 'ERROR' && r.error) {
      out.push(`!!! ERROR ${r.name}: ${r.error.split('\n')[0]}`);
    }
  }
  return out;
}

export function buildReport(options: RunOptions, startedAt: Date, finishedAt: Date, rows: ScenarioResult[]): RunReport {
  const cores = cpus();
  return {
    schema: 'tessera-bench/1',
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    options: {
      durationSeconds: options.durationSeconds,
      warmupSeconds: options.warmupSeconds,
      connections: options.connections,
      only: options.only,
      pin: options.pin,
      cpuProfDir: options.cpuProfDir,
      replicas: options.replicas,
    },
    environment: {
      node: process.version,
      platform: process.platform,
      arch: process.arch,
      cpus: cores.length,
      cpuModel: cores[0]?.model.trim() ?? 'unknown',
    },
    scenarios: rows,
  };
}

/** File name of a run's JSON: its start time, safe on every file system. */
export function timestampFileName(at: Date): string {
  return `${at.toISOString().replace(/[:.]/g, '-')}.json`;
}
