import { cpus } from 'node:os';
import { goalReference, goalsOf } from './plan.js';
import { median, quartiles } from './windows.js';
import type {
  GoalResult,
  Measurement,
  Ratios,
  RunOptions,
  RunReport,
  Scenario,
  ScenarioGoal,
  ScenarioResult,
} from './types.js';

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
export function computeRatio(m: Measurement, baseline: Measurement, sameKind: boolean): Ratios | null {
  if (!(baseline.perSecond > 0)) return null;
  const perCore = m.cpuUsPerOp && baseline.cpuUsPerOp ? baseline.cpuUsPerOp / m.cpuUsPerOp : null;
  return {
    throughput: m.perSecond / baseline.perSecond,
    perCore,
    p99: sameKind && baseline.latencyMs.p99 > 0 ? m.latencyMs.p99 / baseline.latencyMs.p99 : null,
  };
}

/**
 * The ratios of a scenario to a reference measured in turn with it (bench/README.md, "Goals read in turn"): per round, the ratio of the
 * two windows measured seconds apart; the throughput and per-core ratios are the medians of the rounds'. The p99
 * ratio is over the whole measurements. Without windows on both sides (one window), the plain ratio. The rounds'
 * quartiles come with it (`spread`).
 */
export function interleavedRatio(m: Measurement, reference: Measurement, sameKind: boolean): Ratios | null {
  const plain = computeRatio(m, reference, sameKind);
  const [mine, theirs] = [m.windows ?? [], reference.windows ?? []];
  if (!plain || mine.length < 2 || mine.length !== theirs.length) return plain;
  const rounds = mine.map((w, i) => computeRatio({ ...m, ...w }, { ...reference, ...theirs[i]! }, false));
  if (rounds.some((r) => r === null)) return plain;
  const throughput = rounds.map((r) => r!.throughput);
  const perCore = rounds.map((r) => r!.perCore);
  const perCoreKnown = perCore.every((c) => c !== null) ? (perCore as number[]) : null;
  return {
    throughput: median(throughput),
    perCore: perCoreKnown ? median(perCoreKnown) : null,
    p99: plain.p99,
    spread: {
      rounds: rounds.length,
      throughput: quartiles(throughput),
      perCore: perCoreKnown ? quartiles(perCoreKnown) : null,
    },
  };
}

/** Finds the row of a scenario measured earlier in the run (the references of goals), or null. */
export type RowLookup = (name: string) => ScenarioResult | null;

/**
 * The ratios to a reference: to its measurement taken in turn with the scenario when there is a usable one, else to
 * its own row (either way, only when that row has figures).
 */
function ratioTo(
  scenario: Scenario,
  measurement: Measurement,
  reference: ScenarioResult | null,
  interleaved: Measurement | undefined,
): ScenarioResult['ratio'] {
  if (!reference?.measurement || reference.error) return null;
  const sameKind = reference.kind === scenario.kind;
  if (interleaved) return interleavedRatio(measurement, interleaved, sameKind);
  return computeRatio(measurement, reference.measurement, sameKind);
}

/** One goal judged against the row of the scenario it names (or the baseline's row). */
function judgeGoal(
  scenario: Scenario,
  goal: ScenarioGoal,
  measurement: Measurement,
  reference: ScenarioResult | null,
  interleaved: Measurement | undefined,
): GoalResult {
  const against = goalReference(scenario, goal)!;
  const result: GoalResult = {
    ...goal,
    against,
    ratio: null,
    value: null,
    p99Ms: null,
    met: null,
    error: null,
    interleaved: interleaved !== undefined,
  };
  const ratio = ratioTo(scenario, measurement, reference, interleaved);
  result.ratio = ratio;
  if (!ratio) {
    result.error = `${against === scenario.baseline ? 'baseline' : 'goal reference'} "${against}" has no usable figures`;
    return result;
  }
  result.value = goal.basis === 'per-core' ? ratio.perCore : ratio.throughput;
  if (result.value === null) {
    result.error = 'no CPU figures for the per-core ratio of the goal (http servers: Linux /proc only)';
    return result;
  }
  result.met = result.value >= goal.minRatio;
  if (goal.maxP99Ms !== undefined) {
    result.p99Ms = measurement.latencyMs.p99;
    result.met &&= result.p99Ms <= goal.maxP99Ms;
  }
  return result;
}

/**
 * The result row of one scenario, given its measurement (or the error that prevented it), its baseline's row and
 * a lookup of the rows measured before it (for goals read against another scenario than the baseline). PASS when
 * every goal is met, MISS when one is not, ERROR when one cannot be judged.
 */
export function evaluate(
  scenario: Scenario,
  outcome: { measurement: Measurement; interleaved?: Record<string, Measurement> } | { error: string },
  baseline: ScenarioResult | null,
  lookup: RowLookup = () => null,
): ScenarioResult {
  const goals = goalsOf(scenario);
  const row: ScenarioResult = {
    name: scenario.name,
    description: scenario.description,
    kind: scenario.kind,
    unit: scenario.kind === 'http' ? 'req/s' : 'ops/s',
    baseline: scenario.baseline ?? null,
    measurement: 'measurement' in outcome ? outcome.measurement : null,
    ratio: null,
    goal: goals[0] ? { ...goals[0], met: null } : null,
    goals: [],
    status: goals.length > 0 ? 'ERROR' : 'NO GOAL',
    error: 'error' in outcome ? outcome.error : null,
  };
  if (row.measurement) row.error = measurementProblem(row.measurement);
  if (row.error) {
    row.status = 'ERROR';
    return row;
  }
  const measuredBeside = 'interleaved' in outcome ? outcome.interleaved : undefined;
  if (measuredBeside) row.interleaved = measuredBeside;
  // A reference whose measurement beside the scenario failed too often is read on its own row, and its goal says so.
  const interleaved = measuredBeside
    ? Object.fromEntries(Object.entries(measuredBeside).filter(([, m]) => !measurementProblem(m)))
    : undefined;
  if (scenario.baseline) {
    row.ratio = ratioTo(scenario, row.measurement!, baseline, interleaved?.[scenario.baseline]);
  }
  if (goals.length === 0) return row;
  row.goals = goals.map((goal) => {
    const against = goalReference(scenario, goal)!;
    const reference = against === scenario.baseline ? baseline : lookup(against);
    return judgeGoal(scenario, goal, row.measurement!, reference, interleaved?.[against]);
  });
  row.goal = { ...goals[0]!, met: row.goals[0]!.met };
  const unjudged = row.goals.find((g) => g.error);
  if (unjudged) {
    row.error = unjudged.error;
    return row;
  }
  row.status = row.goals.every((g) => g.met) ? 'PASS' : 'MISS';
  return row;
}

const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US');
const fmtMs = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n >= 1 ? n.toFixed(2) : n.toFixed(3));
const fmtPct = (n: number) => `${(n * 100).toFixed(1)}%`;

/** The goal column: the threshold and, for a per-core goal, its basis. */
const goalCell = (goal: GoalResult | ScenarioGoal) =>
  `>= ${fmtPct(goal.minRatio)}${goal.basis === 'per-core' ? ' per-core' : ''}` +
  (goal.maxP99Ms === undefined ? '' : `, p99 <= ${goal.maxP99Ms} ms`);

/** Whether a goal is shown on the scenario's own line: the first goal, when it is read against the baseline. */
const onMainLine = (row: ScenarioResult, goal: GoalResult, index: number) =>
  index === 0 && goal.against === (row.baseline ?? goal.against);

/**
 * The report table; every cell is plain ASCII so that it survives any terminal and log. A goal read against
 * another scenario than the row's baseline (a floor, a reference implementation) gets its own line under the
 * scenario's, `  vs <scenario>`, with the ratios to that scenario and its own result.
 */
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
  const ratioCells = (ratio: ScenarioResult['ratio']) => [
    ratio ? fmtPct(ratio.throughput) : '-',
    ratio?.perCore != null ? fmtPct(ratio.perCore) : '-',
    ratio?.p99 != null ? `${ratio.p99.toFixed(2)}x` : '-',
  ];
  const verdict = (goal: GoalResult) => (goal.met === null ? 'ERROR' : goal.met ? 'PASS' : 'MISS');
  const cells = rows.flatMap((r) => {
    const m = r.measurement;
    // Unjudged (no figures): the first goal and ERROR on the scenario's line. Judged: each goal on its line.
    const judged = r.goals.length > 0;
    const main = r.goals.find((g, i) => onMainLine(r, g, i));
    const mainGoal = judged ? main : r.goal;
    const mainResult = r.status === 'ERROR' ? 'ERROR' : main ? verdict(main) : '-';
    const lines = [
      [
        // A row measured on several replicas says so: its CPU per request is the sum over them.
        m?.replicas ? `${r.name} x${m.replicas.count}` : r.name,
        r.kind,
        m ? `${fmtInt(m.perSecond)} ${r.unit}` : '-',
        m ? fmtMs(m.latencyMs.p50) : '-',
        m ? fmtMs(m.latencyMs.p99) : '-',
        m?.cpuUsPerOp != null ? fmtMs(m.cpuUsPerOp) : '-',
        r.baseline ?? '-',
        ...ratioCells(r.ratio),
        mainGoal ? goalCell(mainGoal) : '-',
        mainResult,
      ],
    ];
    r.goals.forEach((goal, i) => {
      if (onMainLine(r, goal, i)) return;
      lines.push([
        `  vs ${goal.against}`,
        '',
        '',
        '',
        '',
        '',
        goal.against,
        ...ratioCells(goal.ratio),
        goalCell(goal),
        verdict(goal),
      ]);
    });
    return lines;
  });
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((v, i) => (right.has(i) ? v.padStart(widths[i]!) : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}

/**
 * One line per row whose goals were read against references measured in turn with it: each reference's CPU per
 * operation (or rate) in those rounds, which is what the row's ratios compare with.
 */
export function formatInterleaved(rows: ScenarioResult[], rounds: number): string[] {
  return rows
    .filter((r) => r.interleaved && Object.keys(r.interleaved).length > 0)
    .map((r) => {
      const beside = Object.entries(r.interleaved!).map(([name, m]) =>
        m.cpuUsPerOp === null ? `${name} ${fmtInt(m.perSecond)}/s` : `${name} ${fmtMs(m.cpuUsPerOp)} us/op`,
      );
      return `${r.name}: in turn with ${beside.join(', ')} (ratios: medians of ${rounds} rounds)`;
    });
}

/** The middle half of a goal's rounds, on the goal's basis: [first quartile, third quartile], or null. */
function goalSpread(g: GoalResult): [number, number] | null {
  const spread = g.ratio?.spread;
  if (!spread) return null;
  return g.basis === 'per-core' ? spread.perCore : spread.throughput;
}

/**
 * One line per goal read in turn: the median of its rounds and the middle half of them (first to third quartile).
 * A goal whose threshold lies inside that range is within the host's noise for this run: the same code reads on
 * both sides of it from round to round, and one run's PASS or MISS says little (bench/README.md).
 */
export function formatSpread(rows: ScenarioResult[]): string[] {
  const out: string[] = [];
  for (const r of rows) {
    for (const g of r.goals) {
      const range = goalSpread(g);
      if (!g.interleaved || range === null || g.value === null) continue;
      const basis = g.basis === 'per-core' ? 'per-core' : 'throughput';
      const within = range[0] < g.minRatio && g.minRatio <= range[1];
      out.push(
        `${r.name} vs ${g.against}: ${basis} ${fmtPct(g.value)}, middle half of ${g.ratio!.spread!.rounds} rounds ` +
          `${fmtPct(range[0])}-${fmtPct(range[1])}; goal >= ${fmtPct(g.minRatio)} ${within ? 'lies within it' : g.minRatio <= range[0] ? 'lies below it' : 'lies above it'}`,
      );
    }
  }
  return out;
}

/**
 * One line per http row with a goal whose server's main thread was measured: how much of the CPU per operation its
 * event loop spent, the rest being its other threads' (the libuv pool's signatures, garbage collection), and the
 * same for the references measured in turn with it. What a per-core gap to a floor is made of: the pool's work is
 * usually the same on both sides, so the gap is on the event loop (or in the garbage it leaves).
 */
export function formatMainThread(rows: ScenarioResult[]): string[] {
  const split = (name: string, m: Measurement | undefined | null): string | null =>
    m?.mainThreadCpuUsPerOp != null && m.cpuUsPerOp != null && m.cpuUsPerOp > 0
      ? `${name} ${fmtMs(m.mainThreadCpuUsPerOp)} of ${fmtMs(m.cpuUsPerOp)} us/op (${fmtPct(m.mainThreadCpuUsPerOp / m.cpuUsPerOp)})`
      : null;
  return rows
    .filter((r) => r.goals.length > 0)
    .flatMap((r) => {
      const own = split(r.name, r.measurement);
      if (own === null) return [];
      const beside = Object.entries(r.interleaved ?? {})
        .map(([name, m]) => split(name, m))
        .filter((line): line is string => line !== null);
      return [`main thread: ${own}${beside.length > 0 ? `; in turn: ${beside.join(', ')}` : ''}`];
    });
}

/** Lines printed under the table for every MISS (one per missed goal) and ERROR, loud enough for a CI log. */
export function formatAlerts(rows: ScenarioResult[]): string[] {
  const out: string[] = [];
  for (const r of rows) {
    if (r.status === 'MISS') {
      for (const g of r.goals) {
        if (g.met !== false) continue;
        const basis = g.basis === 'per-core' ? 'per-core rate' : 'throughput';
        const p99 = g.p99Ms === null ? '' : `, p99 ${fmtMs(g.p99Ms)} ms (at most ${g.maxP99Ms} ms)`;
        const range = goalSpread(g);
        const rounds = range ? `; middle half of the rounds ${fmtPct(range[0])}-${fmtPct(range[1])}` : '';
        out.push(
          `!!! MISS  ${r.name}: ${fmtPct(g.value!)} of ${g.against}'s ${basis}${p99}${rounds}, goal >= ${fmtPct(g.minRatio)} (${g.text})`,
        );
      }
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
      windows: options.windows,
      interleave: options.interleave,
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
