import { execFileSync } from 'node:child_process';
import { runCpuLoop } from './cpu.js';
import { LatencyHistogram, latencyOf } from './histogram.js';
import { LOAD_CPU, runHttpLoad, type HttpLoadOptions } from './http.js';
import { mainThreadCpuSeconds, processCpuSeconds } from './proc.js';
import { combineWindows } from './windows.js';
import { evaluate } from './report.js';
import { stricterMeasurement } from './confirm.js';
import { dependenciesOf, goalReference, goalsOf } from './plan.js';
import { DEFAULT_CONNECTIONS } from './cli.js';
import type { Measurement, RunOptions, Scenario, ScenarioResult, ScenarioSetup } from './types.js';

export type Progress = (line: string) => void;

/** The setup of the scenario being measured, so that an interrupted run can still stop its server. */
let active: ScenarioSetup[] | null = null;

/** Tears down the scenario in progress (Ctrl-C); resolves when done or when nothing runs. */
export async function abortActive(): Promise<void> {
  const setups = active ?? [];
  active = null;
  for (const setup of [...setups].reverse()) await setup.teardown();
}

/** Connections of an http scenario: `--connections` when given, else the scenario's own, else the default. */
export function connectionsFor(scenario: Scenario, options: Pick<RunOptions, 'connections'>): number {
  return options.connections ?? scenario.connections ?? DEFAULT_CONNECTIONS;
}

/** Server processes of a scenario: `--replicas` for a replicable http scenario, else one. */
export function replicasFor(scenario: Scenario, options: Pick<RunOptions, 'replicas'>): number {
  return scenario.kind === 'http' && scenario.replicable ? options.replicas : 1;
}

/** `--pin`: the parent (load generator, CPU scenarios) stays on one core; server children take another. */
export function pinParent(): void {
  try {
    execFileSync('taskset', ['-a', '-cp', String(LOAD_CPU), String(process.pid)], { stdio: 'ignore' });
  } catch (error) {
    throw new Error(`--pin needs taskset (util-linux) and at least two cores: ${(error as Error).message}`);
  }
}

/** What the harness measures of a set-up scenario: a warm-up, then windows of load (http) or calls (cpu). */
interface Target {
  warmUp(): Promise<void>;
  window(seconds: number, histogram: LatencyHistogram): Promise<Measurement>;
  /** An http target's server processes: the CPU seconds each has used so far (null where unknown). */
  serverCpu?: () => CpuReading;
}

interface CpuReading {
  /** Each server process's CPU seconds, all threads. */
  each: (number | null)[];
  /** With one server process: its main thread's (null where unknown, or with replicas). */
  main: number | null;
}

function targetOf(scenario: Scenario, setup: ScenarioSetup, options: RunOptions): Target {
  if (scenario.kind === 'http') {
    if (!setup.url) throw new Error('an http scenario must return a url from setup()');
    const load: HttpLoadOptions = {
      url: setup.url,
      ...(setup.requests ? { requests: setup.requests } : {}),
      ...(setup.serverPid ? { serverPid: setup.serverPid } : {}),
      ...(setup.replicaPids ? { replicaPids: setup.replicaPids } : {}),
      ...(setup.replicaRequests ? { replicaRequests: setup.replicaRequests } : {}),
      ...(setup.expectedStatus ? { expectedStatus: setup.expectedStatus } : {}),
      connections: connectionsFor(scenario, options),
      durationSeconds: options.durationSeconds,
    };
    const pids = setup.replicaPids ?? (setup.serverPid ? [setup.serverPid] : []);
    return {
      warmUp: async () => void (await runHttpLoad({ ...load, durationSeconds: options.warmupSeconds })),
      window: (seconds, histogram) => runHttpLoad({ ...load, durationSeconds: seconds }, histogram),
      ...(pids.length > 0
        ? {
            serverCpu: () => ({
              each: pids.map(processCpuSeconds),
              main: pids.length === 1 ? mainThreadCpuSeconds(pids[0]!) : null,
            }),
          }
        : {}),
    };
  }
  const fn = setup.fn;
  if (!fn) throw new Error('a cpu scenario must return fn from setup()');
  const concurrency = scenario.concurrency ?? 1;
  return {
    warmUp: async () => void (await runCpuLoop(fn, options.warmupSeconds, concurrency)),
    window: (seconds, histogram) => runCpuLoop(fn, seconds, concurrency, histogram),
  };
}

/**
 * Every target warmed up, then `--windows` rounds in which each target is measured for one window, in turn: the
 * first target's measurement is the scenario's, the others are its goals' references taken beside it
 * (bench/README.md, "Goals read in turn", says why). With one target, the windows simply follow each other.
 *
 * A server's CPU time is counted from the start of one of its windows to the start of its next (the last: to the
 * end of the last round), not only while its load runs: work a server defers past its responses (audit chaining,
 * a publication signed again) is then its own cost, even when it completes during another target's window.
 */
async function measureTargets(targets: Target[], options: RunOptions): Promise<Measurement[]> {
  if (options.warmupSeconds > 0) for (const target of targets) await target.warmUp();
  const histograms = targets.map(() => new LatencyHistogram());
  const windows: Measurement[][] = targets.map(() => []);
  const cpuMarks: CpuReading[][] = targets.map(() => []);
  const seconds = options.durationSeconds / options.windows;
  for (let round = 0; round < options.windows; round++) {
    for (const [i, target] of targets.entries()) {
      if (target.serverCpu) cpuMarks[i]!.push(target.serverCpu());
      windows[i]!.push(await target.window(seconds, histograms[i]!));
    }
  }
  return targets.map((target, i) => {
    let measured = windows[i]!;
    if (target.serverCpu) {
      const marks = [...cpuMarks[i]!, target.serverCpu()];
      measured = measured.map((m, k) => withServerCpu(m, cpuBetween(marks[k]!, marks[k + 1]!)));
    }
    return combineWindows(measured, latencyOf(histograms[i]!));
  });
}

/** The CPU seconds between two readings: each process's, and the main thread's (null where either is unknown). */
function cpuBetween(before: CpuReading, after: CpuReading): CpuReading {
  const between = (b: number | null, a: number | null | undefined) => (b !== null && a != null ? a - b : null);
  return { each: before.each.map((b, i) => between(b, after.each[i])), main: between(before.main, after.main) };
}

/** A window's measurement with its server CPU time replaced (the sum, per replica, per operation). */
function withServerCpu(m: Measurement, cpu: CpuReading): Measurement {
  const cpuEach = cpu.each;
  const known = cpuEach.length > 0 && cpuEach.every((c) => c !== null);
  const cpuSeconds = known ? (cpuEach as number[]).reduce((a, b) => a + b, 0) : null;
  const perOp = (seconds: number | null) => (seconds !== null && m.total > 0 ? (seconds / m.total) * 1e6 : null);
  return {
    ...m,
    cpuSeconds,
    cpuUsPerOp: perOp(cpuSeconds),
    ...(cpuEach.length === 1 ? { mainThreadCpuUsPerOp: perOp(cpu.main) } : {}),
    ...(m.replicas ? { replicas: { ...m.replicas, cpuSeconds: cpuEach } } : {}),
  };
}

type Outcome = { measurement: Measurement; interleaved?: Record<string, Measurement> } | { error: string };

/**
 * One scenario's setup, warm-up, measurement and teardown; a failure becomes the outcome's error. `references`
 * (the scenarios its goals are read against, when interleaving) are set up beside it, each a server or function
 * of its own, and measured in turn with it.
 */
async function measureScenario(
  scenario: Scenario,
  options: RunOptions,
  progress: Progress,
  references: readonly Scenario[] = [],
): Promise<Outcome> {
  let outcome: Outcome;
  const setups: ScenarioSetup[] = [];
  try {
    for (const s of [scenario, ...references]) {
      const setup = await s.setup({
        pin: options.pin,
        cpuProfDir: options.cpuProfDir,
        replicas: replicasFor(s, options),
      });
      setups.push(setup);
      active = setups;
    }
    const targets = [scenario, ...references].map((s, i) => targetOf(s, setups[i]!, options));
    const [measurement, ...beside] = await measureTargets(targets, options);
    outcome = {
      measurement: measurement!,
      ...(references.length > 0
        ? { interleaved: Object.fromEntries(references.map((r, i) => [r.name, beside[i]!])) }
        : {}),
    };
  } catch (error) {
    outcome = { error: (error as Error).message ?? String(error) };
    progress(`    failed: ${(error as Error).stack ?? String(error)}`);
  } finally {
    if (active === setups) {
      active = null;
      for (const setup of setups.reverse()) {
        try {
          await setup.teardown();
        } catch (error) {
          progress(`    teardown failed: ${(error as Error).message}`);
        }
      }
    }
  }
  return outcome;
}

/** With `--interleave` (the default), the scenarios a scenario's goals are read against, else none. */
function referencesOf(scenario: Scenario, all: readonly Scenario[], options: RunOptions): Scenario[] {
  if (!options.interleave) return [];
  const names = [...new Set(goalsOf(scenario).map((goal) => goalReference(scenario, goal)!))];
  return names.map((name) => all.find((s) => s.name === name)).filter((s): s is Scenario => s !== undefined);
}

/**
 * Runs the scenarios one after the other (baselines first, as planned): setup, warm-up, measurement, teardown.
 * A scenario that fails becomes an ERROR row; the others still run. A confirmed baseline (Scenario.confirm) that
 * another scenario of the run reads is measured once more at the end, and every row is judged again against the
 * stricter of its two measurements (confirm.ts).
 */
export async function runScenarios(
  scenarios: Scenario[],
  options: RunOptions,
  progress: Progress,
): Promise<ScenarioResult[]> {
  // Goals read in turn with their references do not read a baseline's own row: nothing to confirm then.
  const confirming = (options.interleave ? [] : scenarios).filter(
    (s) => s.confirm && scenarios.some((other) => dependenciesOf(other).includes(s.name)),
  );
  const steps = scenarios.length + confirming.length;
  const outcomes = new Map<string, Outcome>();
  const rows = new Map<string, ScenarioResult>();
  const judge = (scenario: Scenario) => {
    const baseline = scenario.baseline ? (rows.get(scenario.baseline) ?? null) : null;
    rows.set(
      scenario.name,
      evaluate(scenario, outcomes.get(scenario.name)!, baseline, (name) => rows.get(name) ?? null),
    );
  };
  for (const [i, scenario] of scenarios.entries()) {
    const replicas = replicasFor(scenario, options);
    const inFlight = (scenario.concurrency ?? 1) > 1 ? `${scenario.concurrency} calls in flight, ` : '';
    const what =
      scenario.kind === 'http'
        ? `${connectionsFor(scenario, options)} connections, ${replicas > 1 ? `${replicas} replicas, ` : ''}`
        : `one core, ${inFlight}`;
    const references = referencesOf(scenario, scenarios, options);
    const beside = references.length > 0 ? `, in turn with ${references.map((r) => r.name).join(', ')}` : '';
    progress(
      `[${i + 1}/${steps}] ${scenario.name}: ${what}warm-up ${options.warmupSeconds} s, measuring ${options.durationSeconds} s${beside}`,
    );
    outcomes.set(scenario.name, await measureScenario(scenario, options, progress, references));
    judge(scenario);
  }
  const confirmations = new Map<string, NonNullable<ScenarioResult['confirmation']>>();
  for (const [i, scenario] of confirming.entries()) {
    const first = outcomes.get(scenario.name)!;
    if (!('measurement' in first)) continue;
    progress(`[${scenarios.length + i + 1}/${steps}] ${scenario.name} again: the baseline confirmed at the end`);
    const again = await measureScenario(scenario, options, progress);
    if (!('measurement' in again)) continue;
    const measurements = [first.measurement, again.measurement];
    const used = stricterMeasurement(measurements);
    confirmations.set(scenario.name, { measurements, used });
    outcomes.set(scenario.name, { measurement: measurements[used]! });
  }
  if (confirmations.size > 0) {
    // Every row again, in run order, so that each ratio is read against the measurement now chosen.
    for (const scenario of scenarios) {
      judge(scenario);
      const confirmation = confirmations.get(scenario.name);
      if (confirmation) rows.get(scenario.name)!.confirmation = confirmation;
    }
  }
  return [...rows.values()];
}
