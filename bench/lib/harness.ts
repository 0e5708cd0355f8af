import { execFileSync } from 'node:child_process';
import { measureCpu } from './cpu.js';
import { LOAD_CPU, measureHttp } from './http.js';
import { evaluate } from './report.js';
import { stricterMeasurement } from './confirm.js';
import { dependenciesOf } from './plan.js';
import { DEFAULT_CONNECTIONS } from './cli.js';
import type { Measurement, RunOptions, Scenario, ScenarioResult, ScenarioSetup } from './types.js';

export type Progress = (line: string) => void;

/** The setup of the scenario being measured, so that an interrupted run can still stop its server. */
let active: ScenarioSetup | null = null;

/** Tears down the scenario in progress (Ctrl-C); resolves when done or when nothing runs. */
export async function abortActive(): Promise<void> {
  const setup = active;
  active = null;
  if (setup) await setup.teardown();
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

async function measure(scenario: Scenario, setup: ScenarioSetup, options: RunOptions): Promise<Measurement> {
  if (scenario.kind === 'http') {
    if (!setup.url) throw new Error('an http scenario must return a url from setup()');
    return measureHttp({
      url: setup.url,
      ...(setup.requests ? { requests: setup.requests } : {}),
      ...(setup.serverPid ? { serverPid: setup.serverPid } : {}),
      ...(setup.replicaPids ? { replicaPids: setup.replicaPids } : {}),
      ...(setup.replicaRequests ? { replicaRequests: setup.replicaRequests } : {}),
      ...(setup.expectedStatus ? { expectedStatus: setup.expectedStatus } : {}),
      connections: connectionsFor(scenario, options),
      durationSeconds: options.durationSeconds,
      warmupSeconds: options.warmupSeconds,
      windows: options.windows,
    });
  }
  if (!setup.fn) throw new Error('a cpu scenario must return fn from setup()');
  return measureCpu(setup.fn, {
    durationSeconds: options.durationSeconds,
    warmupSeconds: options.warmupSeconds,
    concurrency: scenario.concurrency ?? 1,
    windows: options.windows,
  });
}

type Outcome = { measurement: Measurement } | { error: string };

/** One scenario's setup, warm-up, measurement and teardown; a failure becomes the outcome's error. */
async function measureScenario(scenario: Scenario, options: RunOptions, progress: Progress): Promise<Outcome> {
  const replicas = replicasFor(scenario, options);
  let outcome: Outcome;
  let setup: ScenarioSetup | null = null;
  try {
    setup = await scenario.setup({ pin: options.pin, cpuProfDir: options.cpuProfDir, replicas });
    active = setup;
    outcome = { measurement: await measure(scenario, setup, options) };
  } catch (error) {
    outcome = { error: (error as Error).message ?? String(error) };
    progress(`    failed: ${(error as Error).stack ?? String(error)}`);
  } finally {
    if (setup && active === setup) {
      active = null;
      try {
        await setup.teardown();
      } catch (error) {
        progress(`    teardown failed: ${(error as Error).message}`);
      }
    }
  }
  return outcome;
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
  const confirming = scenarios.filter(
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
    progress(
      `[${i + 1}/${steps}] ${scenario.name}: ${what}warm-up ${options.warmupSeconds} s, measuring ${options.durationSeconds} s`,
    );
    outcomes.set(scenario.name, await measureScenario(scenario, options, progress));
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
