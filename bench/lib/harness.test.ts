import { describe, expect, it } from 'vitest';
import {
  parseCli,
  UsageError,
  DEFAULT_CONNECTIONS,
  DEFAULT_DURATION_SECONDS,
  DEFAULT_WARMUP_SECONDS,
  DEFAULT_WINDOWS,
} from './cli.js';
import { goalReference, goalsOf, planRun, validateRegistry } from './plan.js';
import {
  buildReport,
  computeRatio,
  evaluate,
  formatInterleaved,
  formatMainThread,
  formatSpread,
  interleavedRatio,
  formatAlerts,
  formatTable,
  measurementProblem,
  timestampFileName,
} from './report.js';
import { LatencyHistogram } from './histogram.js';
import { parseReadyLine, READY_PREFIX } from './server-child.js';
import { childEnv } from './http.js';
import { connectionsFor, replicasFor, runScenarios } from './harness.js';
import { formatConfirmations, stricterMeasurement } from './confirm.js';
import { runCpuLoop } from './cpu.js';
import { combineWindows, median, quartiles } from './windows.js';
import { mainThreadCpuSeconds, parseProcStatTicks, processCpuSeconds } from './proc.js';
import { compareProfiles, formatComparison, formatProfile, packageOf, summarizeProfile } from './profile.js';
import { scenarios as registry } from '../scenarios/index.js';
import { TEST_RUN_OPTIONS } from './run-options.fixture.js';
import type { Measurement, Scenario, ScenarioResult } from './types.js';

const noSetup = async () => ({ teardown: async () => {} });
const http = (name: string, extra: Partial<Scenario> = {}): Scenario => ({
  name,
  description: name,
  kind: 'http',
  setup: noSetup,
  ...extra,
});
const cpu = (name: string, extra: Partial<Scenario> = {}): Scenario => ({
  name,
  description: name,
  kind: 'cpu',
  setup: noSetup,
  ...extra,
});

const measurement = (perSecond: number, p50: number, p99: number, extra: Partial<Measurement> = {}): Measurement => ({
  durationSeconds: 10,
  total: perSecond * 10,
  perSecond,
  latencyMs: { p50, p99, mean: p50, max: p99 * 2 },
  cpuSeconds: 9,
  cpuUsPerOp: 9e6 / (perSecond * 10),
  errors: 0,
  non2xx: 0,
  ...extra,
});

const options = TEST_RUN_OPTIONS;

describe('parseCli', () => {
  it('defaults: every scenario, 10 s, 2 s warm-up, the scenarios’ own connection counts, the timestamped JSON file', () => {
    expect(parseCli([])).toEqual({
      kind: 'run',
      options: {
        durationSeconds: DEFAULT_DURATION_SECONDS,
        warmupSeconds: DEFAULT_WARMUP_SECONDS,
        connections: null,
        only: null,
        jsonPath: null,
        pin: false,
        cpuProfDir: null,
        replicas: 1,
        windows: DEFAULT_WINDOWS,
        interleave: true,
      },
      against: null,
    });
    expect(DEFAULT_DURATION_SECONDS).toBe(10);
    expect(DEFAULT_WINDOWS).toBe(10);
    expect(DEFAULT_CONNECTIONS).toBe(50);
  });

  it('reads --only as a comma list (repeatable, trimmed, deduplicated) and the numeric flags', () => {
    const command = parseCli([
      '--only',
      'platform-public-route, bare-route',
      '--only=bare-route,rs256-sign',
      '--duration',
      '5',
      '--connections=20',
      '--json',
      'out/x.json',
      '--warmup',
      '0',
      '--pin',
      '--cpu-prof',
      '/tmp/p',
      '--separately',
    ]);
    expect(command).toEqual({
      kind: 'run',
      options: {
        durationSeconds: 5,
        warmupSeconds: 0,
        connections: 20,
        only: ['platform-public-route', 'bare-route', 'rs256-sign'],
        jsonPath: 'out/x.json',
        pin: true,
        cpuProfDir: '/tmp/p',
        replicas: 1,
        windows: DEFAULT_WINDOWS,
        interleave: false,
      },
      against: null,
    });
  });

  it('reads --replicas, 1 by default, a whole number from 1 to 8', () => {
    const command = parseCli(['--replicas', '2']);
    expect(command.kind === 'run' && command.options.replicas).toBe(2);
    for (const bad of ['0', '1.5', '9', 'two']) expect(() => parseCli(['--replicas', bad])).toThrow(UsageError);
  });

  it('reads --windows, a whole number of at least 1', () => {
    const command = parseCli(['--windows', '3']);
    expect(command.kind === 'run' && command.options.windows).toBe(3);
    for (const bad of ['0', '1.5', 'five']) expect(() => parseCli(['--windows', bad])).toThrow(UsageError);
  });

  it('reads --against, a git ref', () => {
    const command = parseCli(['--only', 'status-list-update', '--against', 'HEAD~1']);
    expect(command.kind === 'run' && command.against).toBe('HEAD~1');
    expect(() => parseCli(['--against', ' '])).toThrow(UsageError);
  });

  it('accepts a fractional duration', () => {
    const command = parseCli(['--duration', '0.5']);
    expect(command.kind === 'run' && command.options.durationSeconds).toBe(0.5);
  });

  it.each([
    [['--duration', '0']],
    [['--duration', 'ten']],
    [['--duration', '']],
    [['--connections', '2.5']],
    [['--connections', '-1']],
    [['--warmup', '-1']],
    [['--only', ',']],
    [['--json', ' ']],
    [['--cpu-prof', '']],
    [['--bogus']],
    [['positional']],
    [['--duration']],
  ])('refuses %j with a usage error', (argv) => {
    expect(() => parseCli(argv)).toThrow(UsageError);
  });

  it('knows --help and --list', () => {
    expect(parseCli(['--help'])).toEqual({ kind: 'help' });
    expect(parseCli(['-h'])).toEqual({ kind: 'help' });
    expect(parseCli(['--list'])).toEqual({ kind: 'list' });
  });
});

describe('planRun', () => {
  const reg = [
    http('b'),
    http('a', { baseline: 'b', goal: { minRatio: 0.6, text: 'x' } }),
    cpu('c'),
    cpu('d', { baseline: 'c' }),
    http('e', { baseline: 'c' }),
  ];

  it('runs everything in registry order when --only is absent', () => {
    expect(planRun(reg, null).scenarios.map((s) => s.name)).toEqual(['b', 'a', 'c', 'd', 'e']);
  });

  it('adds the baselines of the selected scenarios and runs them first', () => {
    const plan = planRun(reg, ['a', 'e']);
    expect(plan.scenarios.map((s) => s.name)).toEqual(['b', 'a', 'c', 'e']);
    expect(plan.addedBaselines.sort()).toEqual(['b', 'c']);
  });

  it('moves a baseline declared after its user before it', () => {
    const plan = planRun([http('user', { baseline: 'base' }), http('base')], null);
    expect(plan.scenarios.map((s) => s.name)).toEqual(['base', 'user']);
  });

  it('names unknown scenarios', () => {
    expect(() => planRun(reg, ['a', 'nope'])).toThrow(/unknown scenario: nope/);
  });

  it('refuses a broken registry', () => {
    expect(() => validateRegistry([http('x'), http('x')])).toThrow(/two scenarios/);
    expect(() => validateRegistry([http('x', { baseline: 'y' })])).toThrow(/unknown baseline/);
    expect(() => validateRegistry([http('x', { baseline: 'y' }), http('y', { baseline: 'x' })])).toThrow(/cycle/);
    expect(() => validateRegistry([http('x', { goal: { minRatio: 0.5, text: '' } })])).toThrow(/no baseline/);
    expect(() => validateRegistry([http('Not Kebab')])).toThrow(/kebab/);
  });

  it('accepts the real registry, with the baselines later issues compare against', () => {
    expect(() => validateRegistry(registry)).not.toThrow();
    const byName = new Map(registry.map((s) => [s.name, s]));
    expect(byName.get('bare-route')?.kind).toBe('http');
    expect(byName.get('rs256-sign')?.kind).toBe('cpu');
    expect(byName.get('platform-public-route')).toMatchObject({
      kind: 'http',
      baseline: 'bare-route',
      goal: { minRatio: 0.7, basis: 'per-core' },
    });
  });

  it('carries the goals of issue 22, per core against the scenario each names', () => {
    const byName = new Map(registry.map((s) => [s.name, s]));
    const goals = (name: string) =>
      goalsOf(byName.get(name)!).map((g) => [goalReference(byName.get(name)!, g), g.minRatio, g.basis]);
    expect(goals('token-refresh')).toEqual([
      ['token-refresh-floor', 0.85, 'per-core'],
      ['oidc-provider-refresh', 2, 'per-core'],
    ]);
    expect(goals('token-code-exchange')).toEqual([
      ['token-code-exchange-floor', 0.8, 'per-core'],
      ['oidc-provider-code-exchange', 1.5, 'per-core'],
    ]);
    expect(goals('reconciliation-lookup')).toEqual([['reconciliation-lookup-floor', 0.5, 'per-core']]);
    expect(goals('bridge-verify-sd-jwt')).toEqual([['es256-verify', 0.3, 'per-core']]);
    expect(goals('bridge-create-session')).toEqual([['platform-public-route', 0.05, 'per-core']]);
    expect(goals('dpop-verify-redis-store')).toEqual([['es256-verify', 0.5, 'per-core']]);
    expect(goals('dpop-verify-redis-store-32')).toEqual([['es256-verify', 0.5, 'per-core']]);
    expect(byName.get('dpop-verify-redis-store-32')!.concurrency).toBe(32);
    expect(goals('platform-public-route')).toEqual([['bare-route', 0.7, 'per-core']]);
  });

  it('runs the scenario a goal is read against before it, and adds it when --only leaves it out', () => {
    const reg2 = [
      http('ours', {
        baseline: 'floor',
        goal: [
          { minRatio: 0.8, basis: 'per-core', text: 'floor' },
          { minRatio: 2, basis: 'per-core', against: 'reference', text: 'reference' },
        ],
      }),
      http('floor', { baseline: 'raw' }),
      http('reference', { baseline: 'raw' }),
      cpu('raw'),
    ];
    const plan = planRun(reg2, ['ours']);
    expect(plan.scenarios.map((s) => s.name)).toEqual(['raw', 'floor', 'reference', 'ours']);
    expect(plan.addedBaselines.sort()).toEqual(['floor', 'raw', 'reference']);
    expect(() => validateRegistry([http('x', { goal: { minRatio: 1, against: 'nope', text: '' } })])).toThrow(
      /unknown goal reference "nope"/,
    );
    expect(() =>
      validateRegistry([http('x', { goal: { minRatio: 1, against: 'y', text: '' } }), http('y', { baseline: 'x' })]),
    ).toThrow(/cycle/);
    // A goal with its own reference needs no baseline.
    expect(() =>
      validateRegistry([http('x', { goal: { minRatio: 1, against: 'y', text: '' } }), http('y')]),
    ).not.toThrow();
    expect(() => validateRegistry([cpu('x', { concurrency: 0 })])).toThrow(/concurrency/);
  });
});

describe('ratios and goals', () => {
  it('throughput ratio is scenario over baseline; latency ratio is p99 over baseline p99', () => {
    const r = computeRatio(measurement(6000, 2, 12), measurement(10000, 1, 8), true);
    expect(r!.throughput).toBeCloseTo(0.6, 10);
    expect(r!.p99).toBeCloseTo(1.5, 10);
  });

  it('per-core ratio is the baseline CPU per operation over the scenario’s, null without CPU figures', () => {
    const scenario = measurement(3000, 2, 12, { cpuUsPerOp: 200 });
    expect(computeRatio(scenario, measurement(10000, 1, 8, { cpuUsPerOp: 50 }), true)!.perCore).toBeCloseTo(0.25, 10);
    expect(computeRatio(scenario, measurement(10000, 1, 8, { cpuUsPerOp: null }), true)!.perCore).toBeNull();
  });

  it('a per-core goal is judged on the per-core ratio (tokens per CPU second against signatures per CPU second)', () => {
    const sign = evaluate(cpu('rs256-sign'), { measurement: measurement(4000, 0.25, 0.3, { cpuUsPerOp: 250 }) }, null);
    const goal = { minRatio: 0.5, text: 'half the signing rate per core', basis: 'per-core' as const };
    const tokens = http('token-exchange', { baseline: 'rs256-sign', goal });
    const fast = evaluate(tokens, { measurement: measurement(1000, 5, 9, { cpuUsPerOp: 400 }) }, sign);
    expect(fast).toMatchObject({ status: 'PASS', goal: { met: true } });
    expect(fast.ratio!.throughput).toBeCloseTo(0.25, 10);
    expect(fast.ratio!.perCore).toBeCloseTo(0.625, 10);
    const slow = evaluate(tokens, { measurement: measurement(3000, 5, 9, { cpuUsPerOp: 600 }) }, sign);
    expect(slow).toMatchObject({ status: 'MISS', goal: { met: false } });
    expect(formatAlerts([slow])[0]).toMatch(/41\.7% of rs256-sign's per-core rate, goal >= 50\.0%/);
    const blind = evaluate(tokens, { measurement: measurement(1000, 5, 9, { cpuUsPerOp: null }) }, sign);
    expect(blind.status).toBe('ERROR');
    expect(blind.error).toMatch(/no CPU figures/);
  });

  it('a goal with a p99 bound is met only when the ratio and the p99 both are (issue 20)', () => {
    const driver = evaluate(http('driver'), { measurement: measurement(2000, 20, 30) }, null);
    const goal = { minRatio: 0.5, maxP99Ms: 50, text: 'half the driver; p99 < 50 ms' };
    const search = http('search', { baseline: 'driver', goal });
    expect(evaluate(search, { measurement: measurement(1500, 25, 49.9) }, driver)).toMatchObject({
      status: 'PASS',
      goals: [{ met: true, p99Ms: 49.9 }],
    });
    const late = evaluate(search, { measurement: measurement(1500, 25, 53.8) }, driver);
    expect(late).toMatchObject({ status: 'MISS', goals: [{ met: false, p99Ms: 53.8 }] });
    expect(formatAlerts([late])[0]).toMatch(/75\.0% of driver's throughput, p99 53\.8 ms \(at most 50 ms\)/);
    expect(formatTable([late])).toContain('>= 50.0%, p99 <= 50 ms');
    expect(evaluate(search, { measurement: measurement(900, 25, 30) }, driver).status).toBe('MISS');
  });

  it('gives no latency ratio between kinds, and no ratio against an empty baseline', () => {
    expect(computeRatio(measurement(500, 2, 4), measurement(2000, 0.4, 0.6), false)).toMatchObject({
      throughput: 0.25,
      p99: null,
    });
    expect(computeRatio(measurement(500, 2, 4), measurement(0, 0, 0), true)).toBeNull();
  });

  const base = evaluate(http('bare'), { measurement: measurement(10000, 1, 8) }, null);
  const scenario = http('platform', { baseline: 'bare', goal: { minRatio: 0.6, text: 'keeps 60%' } });

  it('a baseline without a goal has status NO GOAL', () => {
    expect(base).toMatchObject({ status: 'NO GOAL', ratio: null, goal: null, error: null, unit: 'req/s' });
  });

  it('PASS at exactly the goal, MISS below it', () => {
    expect(evaluate(scenario, { measurement: measurement(6000, 2, 9) }, base)).toMatchObject({
      status: 'PASS',
      goal: { met: true },
    });
    expect(evaluate(scenario, { measurement: measurement(5999, 2, 9) }, base)).toMatchObject({
      status: 'MISS',
      goal: { met: false },
    });
  });

  it('ERROR when the scenario failed, when too many requests failed, or when the baseline has no figures', () => {
    expect(evaluate(scenario, { error: 'server died' }, base)).toMatchObject({
      status: 'ERROR',
      error: 'server died',
      measurement: null,
    });
    const failing = evaluate(scenario, { measurement: measurement(9000, 1, 2, { non2xx: 5000 }) }, base);
    expect(failing.status).toBe('ERROR');
    expect(failing.error).toMatch(/5000 non-2xx/);
    const noBase = evaluate(
      scenario,
      { measurement: measurement(6000, 2, 9) },
      evaluate(http('bare'), { error: 'x' }, null),
    );
    expect(noBase).toMatchObject({ status: 'ERROR', goal: { met: null } });
    expect(noBase.error).toMatch(/baseline "bare"/);
  });

  it('tolerates a handful of failures (0.1%) in a long run', () => {
    expect(measurementProblem(measurement(10000, 1, 2, { errors: 50 }))).toBeNull();
    expect(measurementProblem(measurement(10000, 1, 2, { errors: 101 }))).toMatch(/101 connection errors/);
    expect(measurementProblem(measurement(0, 0, 0))).toMatch(/no request/);
  });

  it('a cpu scenario compared with a cpu baseline', () => {
    const raw = evaluate(cpu('es256-verify'), { measurement: measurement(20000, 0.05, 0.08) }, null);
    const row = evaluate(
      cpu('dpop', { baseline: 'es256-verify', goal: { minRatio: 0.5, text: '' } }),
      { measurement: measurement(12000, 0.08, 0.1) },
      raw,
    );
    expect(row).toMatchObject({ status: 'PASS', unit: 'ops/s' });
    expect(row.ratio!.throughput).toBeCloseTo(0.6, 10);
    expect(row.ratio!.p99).toBeCloseTo(1.25, 10);
  });
});

describe('goals against another scenario (floors, reference implementations)', () => {
  const raw = evaluate(cpu('rs256-sign'), { measurement: measurement(4000, 0.25, 0.3, { cpuUsPerOp: 250 }) }, null);
  const floor = evaluate(
    http('token-refresh-floor', { baseline: 'rs256-sign' }),
    { measurement: measurement(2000, 5, 9, { cpuUsPerOp: 500 }) },
    raw,
  );
  const reference = evaluate(
    http('oidc-provider-refresh', { baseline: 'rs256-sign' }),
    { measurement: measurement(1500, 5, 9, { cpuUsPerOp: 1200 }) },
    raw,
  );
  const rows = new Map([raw, floor, reference].map((r) => [r.name, r]));
  const lookup = (name: string) => rows.get(name) ?? null;
  const ours = http('token-refresh', {
    baseline: 'token-refresh-floor',
    goal: [
      { minRatio: 0.85, basis: 'per-core', text: 'floor' },
      { minRatio: 2, basis: 'per-core', against: 'oidc-provider-refresh', text: 'twice the reference' },
    ],
  });

  it('judges every goal on its own reference: PASS only when all are met', () => {
    // 580 us per request: 500/580 = 0.862 of the floor, 1200/580 = 2.07 times the reference.
    const pass = evaluate(ours, { measurement: measurement(1700, 6, 10, { cpuUsPerOp: 580 }) }, floor, lookup);
    expect(pass.status).toBe('PASS');
    expect(pass.ratio!.perCore).toBeCloseTo(500 / 580, 10);
    expect(pass.goals.map((g) => [g.against, g.met])).toEqual([
      ['token-refresh-floor', true],
      ['oidc-provider-refresh', true],
    ]);
    expect(pass.goals[1]!.value).toBeCloseTo(1200 / 580, 10);
    expect(pass.goals[1]!.ratio!.throughput).toBeCloseTo(1700 / 1500, 10);
    // 650 us: 0.77 of the floor (MISS), 1.85 times the reference (MISS).
    const miss = evaluate(ours, { measurement: measurement(1700, 6, 10, { cpuUsPerOp: 650 }) }, floor, lookup);
    expect(miss.status).toBe('MISS');
    expect(miss.goal).toMatchObject({ minRatio: 0.85, met: false });
    expect(formatAlerts([miss])).toEqual([
      "!!! MISS  token-refresh: 76.9% of token-refresh-floor's per-core rate, goal >= 85.0% (floor)",
      "!!! MISS  token-refresh: 184.6% of oidc-provider-refresh's per-core rate, goal >= 200.0% (twice the reference)",
    ]);
    // 590 us: 0.847 of the floor (MISS), 2.03 times the reference (PASS): MISS.
    const half = evaluate(ours, { measurement: measurement(1700, 6, 10, { cpuUsPerOp: 590 }) }, floor, lookup);
    expect(half.goals.map((g) => g.met)).toEqual([false, true]);
    expect(half.status).toBe('MISS');
  });

  it('is an ERROR when the reference has no figures', () => {
    const broken = evaluate(http('oidc-provider-refresh'), { error: 'did not start' }, null);
    const row = evaluate(ours, { measurement: measurement(1700, 6, 10, { cpuUsPerOp: 580 }) }, floor, (name) =>
      name === 'oidc-provider-refresh' ? broken : lookup(name),
    );
    expect(row.status).toBe('ERROR');
    expect(row.error).toMatch(/goal reference "oidc-provider-refresh" has no usable figures/);
    expect(evaluate(ours, { measurement: measurement(1700, 6, 10) }, floor).error).toMatch(/oidc-provider-refresh/);
  });

  it('prints each further goal on its own line under the scenario, with its ratios and result', () => {
    const row = evaluate(ours, { measurement: measurement(1700, 6, 10, { cpuUsPerOp: 590 }) }, floor, lookup);
    const lines = formatTable([raw, floor, reference, row]).split('\n');
    expect(lines).toHaveLength(2 + 5);
    expect(lines[5]).toMatch(
      /^token-refresh +http .* token-refresh-floor +85\.0% +84\.7% +1\.11x +>= 85\.0% per-core +MISS$/,
    );
    expect(lines[6]).toMatch(
      /^ {2}vs oidc-provider-refresh +oidc-provider-refresh +113\.3% +203\.4% +1\.11x +>= 200\.0% per-core +PASS$/,
    );
    // Same column layout: the goal column starts at the same offset on both lines.
    expect(lines[5]!.indexOf('>=')).toBe(lines[6]!.indexOf('>='));
  });
});

describe('table and alerts', () => {
  const base = evaluate(http('bare-route'), { measurement: measurement(20000.4, 1.234, 8.5) }, null);
  const pass = evaluate(
    http('platform-public-route', { baseline: 'bare-route', goal: { minRatio: 0.6, text: 'keeps 60%' } }),
    { measurement: measurement(13000, 2, 12.75) },
    base,
  );
  const miss = evaluate(
    http('slow-route', { baseline: 'bare-route', goal: { minRatio: 0.6, text: 'keeps 60%' } }),
    { measurement: measurement(10000, 3, 20) },
    base,
  );
  const error = evaluate(cpu('broken'), { error: 'setup failed\nstack line' }, null);
  const rows = [base, pass, miss, error];
  const table = formatTable(rows);
  const lines = table.split('\n');

  it('has a header, a rule and one aligned row per scenario', () => {
    expect(lines).toHaveLength(2 + rows.length);
    expect(lines[0]).toMatch(
      /^scenario\s+kind\s+throughput\s+p50 ms\s+p99 ms\s+cpu us\/op\s+baseline\s+ratio\s+per-core\s+p99 ratio\s+goal\s+result$/,
    );
    expect(lines[1]).toMatch(/^-+( +-+)+$/);
    // Right-aligned numbers: the throughput column ends at the same offset on every row.
    const end = lines[0]!.indexOf('throughput') + 'throughput'.length;
    const width = lines[1]!.split('  ').slice(0, 3).join('  ').length;
    expect(end).toBeLessThanOrEqual(width);
    expect(
      lines.slice(2).map((l) => l.slice(0, width).endsWith('/s') || l.slice(0, width).trimEnd().endsWith('-')),
    ).toEqual([true, true, true, true]);
  });

  it('shows throughput with its unit, milliseconds, ratios, goal and result', () => {
    expect(lines[2]).toContain('20,000 req/s');
    expect(lines[2]).toContain('1.23');
    expect(lines[2]).toContain('8.50');
    expect(lines[3]).toMatch(
      /platform-public-route .*13,000 req\/s +2\.00 +12\.8 +69\.2 +bare-route +65\.0% +65\.0% +1\.50x +>= 60\.0% +PASS$/,
    );
    expect(lines[4]).toMatch(/50\.0% +50\.0% +2\.35x +>= 60\.0% +MISS$/);
    expect(lines[5]).toMatch(/^broken +cpu +- +- +- +- +- +- +- +- +- +ERROR$/);
    expect(table).toMatch(/^[\x20-\x7e\n]*$/);
  });

  it('marks a row measured on replicas with their count; one-server rows keep their name', () => {
    const replicated = evaluate(
      http('token-refresh', { replicable: true }),
      { measurement: measurement(500, 10, 40, { replicas: { count: 2, requests: [2500, 2500], cpuSeconds: [4, 5] } }) },
      null,
    );
    const [, , , row] = formatTable([base, replicated]).split('\n');
    expect(row).toMatch(/^token-refresh x2 +http +500 req\/s/);
    expect(lines[2]).toMatch(/^bare-route +http/);
  });

  it('prints every MISS and ERROR loudly underneath', () => {
    expect(formatAlerts(rows)).toEqual([
      "!!! MISS  slow-route: 50.0% of bare-route's throughput, goal >= 60.0% (keeps 60%)",
      '!!! ERROR broken: setup failed',
    ]);
    expect(formatAlerts([base, pass])).toEqual([]);
  });
});

describe('result JSON', () => {
  it('has a schema tag, the options, the environment and one entry per scenario', () => {
    const base = evaluate(http('bare-route'), { measurement: measurement(20000, 1, 8, { connections: 50 }) }, null);
    const row = evaluate(
      http('p', { baseline: 'bare-route', goal: { minRatio: 0.6, text: 't' } }),
      { measurement: measurement(15000, 1, 9, { connections: 50 }) },
      base,
    );
    const report = buildReport(
      { ...options, only: ['p'] },
      new Date('2025-01-02T03:04:05.678Z'),
      new Date('2025-01-02T03:05:00.000Z'),
      [base, row],
    );
    const parsed = JSON.parse(JSON.stringify(report)) as Record<string, unknown>;
    expect(parsed).toMatchObject({
      schema: 'tessera-bench/1',
      startedAt: '2025-01-02T03:04:05.678Z',
      finishedAt: '2025-01-02T03:05:00.000Z',
      options: {
        durationSeconds: 10,
        warmupSeconds: 2,
        connections: null,
        only: ['p'],
        pin: false,
        cpuProfDir: null,
        replicas: 1,
      },
      environment: { node: process.version, platform: process.platform, arch: process.arch },
    });
    const entries = parsed.scenarios as ScenarioResult[];
    expect(entries.map((e) => Object.keys(e).sort())).toEqual([
      ['baseline', 'description', 'error', 'goal', 'goals', 'kind', 'measurement', 'name', 'ratio', 'status', 'unit'],
      ['baseline', 'description', 'error', 'goal', 'goals', 'kind', 'measurement', 'name', 'ratio', 'status', 'unit'],
    ]);
    expect(entries[1]).toMatchObject({
      name: 'p',
      kind: 'http',
      unit: 'req/s',
      baseline: 'bare-route',
      measurement: {
        perSecond: 15000,
        total: 150000,
        durationSeconds: 10,
        latencyMs: { p50: 1, p99: 9 },
        cpuSeconds: 9,
        cpuUsPerOp: 60,
        errors: 0,
        non2xx: 0,
        connections: 50,
      },
      ratio: { throughput: 0.75 },
      goal: { minRatio: 0.6, text: 't', met: true },
      goals: [{ minRatio: 0.6, text: 't', against: 'bare-route', met: true, error: null }],
      status: 'PASS',
      error: null,
    });
    expect(entries[1]!.ratio!.p99).toBeCloseTo(1.125, 10);
  });

  it('names the file after the start time, without characters file systems refuse', () => {
    expect(timestampFileName(new Date('2025-01-02T03:04:05.678Z'))).toBe('2025-01-02T03-04-05-678Z.json');
  });
});

describe('LatencyHistogram', () => {
  it('percentiles within 1% of the exact value', () => {
    const h = new LatencyHistogram();
    for (let i = 1; i <= 1000; i++) h.record(i / 100); // 0.01 .. 10 ms
    expect(h.count).toBe(1000);
    expect(h.percentile(50)).toBeGreaterThanOrEqual(5);
    expect(h.percentile(50)).toBeLessThanOrEqual(5 * 1.01);
    expect(h.percentile(99)).toBeGreaterThanOrEqual(9.9);
    expect(h.percentile(99)).toBeLessThanOrEqual(9.9 * 1.01);
    expect(h.percentile(100)).toBe(10);
    expect(h.mean).toBeCloseTo(5.005, 10);
    expect(h.min).toBe(0.01);
  });

  it('never reports a percentile outside the recorded range, and 0 when empty', () => {
    const h = new LatencyHistogram();
    expect(h.percentile(99)).toBe(0);
    h.record(3);
    expect(h.percentile(1)).toBe(3);
    expect(h.percentile(99)).toBe(3);
    h.record(0); // below the 1 ns floor: counted in the lowest bucket
    expect(h.percentile(1)).toBeLessThanOrEqual(1e-6);
    expect(h.min).toBe(0);
  });
});

describe('server child protocol', () => {
  it('recognises the ready line only', () => {
    expect(parseReadyLine(`${READY_PREFIX}http://127.0.0.1:43210`)).toBe('http://127.0.0.1:43210');
    expect(parseReadyLine(`${READY_PREFIX}http://127.0.0.1:1 \r`)).toBe('http://127.0.0.1:1');
    expect(parseReadyLine('{"level":"info","msg":"Server listening at http://127.0.0.1:1"}')).toBeNull();
    expect(parseReadyLine(`${READY_PREFIX}not a url`)).toBeNull();
  });

  it('strips OpenTelemetry settings from the child environment and discards logs by default', () => {
    const env = childEnv(
      { PATH: '/bin', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector', OTEL_SERVICE_NAME: 'x' },
      { BENCH_DATA_DIR: '/tmp/x' },
    );
    expect(env).toEqual({ PATH: '/bin', BENCH_LOG_FILE: '/dev/null', BENCH_DATA_DIR: '/tmp/x' });
    expect(childEnv({ BENCH_LOG_FILE: '/tmp/log' }).BENCH_LOG_FILE).toBe('/tmp/log');
  });

  it('replicas: --replicas for a replicable http scenario, one server for any other', () => {
    expect(replicasFor(http('a', { replicable: true }), { replicas: 2 })).toBe(2);
    expect(replicasFor(http('a'), { replicas: 2 })).toBe(1);
    expect(replicasFor(cpu('a', { replicable: true }), { replicas: 2 })).toBe(1);
    expect(replicasFor(http('a', { replicable: true }), { replicas: 1 })).toBe(1);
  });

  it('connections: --connections wins, then the scenario, then 50', () => {
    expect(connectionsFor(http('a'), { connections: null })).toBe(50);
    expect(connectionsFor(http('a', { connections: 10 }), { connections: null })).toBe(10);
    expect(connectionsFor(http('a', { connections: 10 }), { connections: 200 })).toBe(200);
  });
});

describe('parseProcStatTicks', () => {
  it('reads utime + stime, whatever the process name holds', () => {
    const rest = 'S 1 2 3 0 -1 4194560 1000 0 0 0 1234 56 0 0 20 0 11 0 100 0 0';
    expect(parseProcStatTicks(`4242 (node) ${rest}`)).toBe(1290);
    expect(parseProcStatTicks(`4242 (a) b (c)) ${rest}`)).toBe(1290);
    expect(parseProcStatTicks('garbage')).toBeNull();
  });

  it('reads a live process and its main thread, the thread a part of the process', () => {
    const main = mainThreadCpuSeconds(process.pid);
    const all = processCpuSeconds(process.pid);
    expect(main).toBeGreaterThanOrEqual(0);
    expect(main!).toBeLessThanOrEqual(all! + 0.011);
    expect(mainThreadCpuSeconds(2 ** 22 + 1)).toBeNull();
  });
});

describe('runScenarios', () => {
  it('sets up, measures and tears down each scenario; a failing one becomes an ERROR row and the run goes on', async () => {
    const events: string[] = [];
    const quick = (name: string, extra: Partial<Scenario> = {}): Scenario =>
      cpu(name, {
        async setup() {
          events.push(`setup ${name}`);
          return { fn: () => {}, teardown: async () => void events.push(`teardown ${name}`) };
        },
        ...extra,
      });
    const broken = cpu('broken', {
      async setup() {
        throw new Error('cannot start');
      },
    });
    const noFn = cpu('no-fn', {
      async setup() {
        return { teardown: async () => void events.push('teardown no-fn') };
      },
    });
    const lines: string[] = [];
    const rows = await runScenarios(
      [quick('base'), quick('user', { baseline: 'base', goal: { minRatio: 0.000001, text: 'any' } }), broken, noFn],
      { ...options, durationSeconds: 0.02, warmupSeconds: 0 },
      (l) => lines.push(l),
    );
    expect(events).toEqual(['setup base', 'teardown base', 'setup user', 'teardown user', 'teardown no-fn']);
    expect(rows.map((r) => [r.name, r.status])).toEqual([
      ['base', 'NO GOAL'],
      ['user', 'PASS'],
      ['broken', 'ERROR'],
      ['no-fn', 'ERROR'],
    ]);
    expect(rows[2]!.error).toBe('cannot start');
    expect(rows[3]!.error).toMatch(/must return fn/);
    expect(rows[1]!.measurement!.total).toBeGreaterThan(0);
    expect(rows[1]!.measurement!.cpuSeconds).not.toBeNull();
    expect(lines[0]).toMatch(/^\[1\/4\] base: one core/);
  });

  it('tells a replicable http scenario how many replicas to start, and any other scenario one', async () => {
    const seen: [string, number][] = [];
    const failing = (name: string, replicable: boolean): Scenario =>
      http(name, {
        replicable,
        async setup(context) {
          seen.push([name, context.replicas]);
          throw new Error('not measured here');
        },
      });
    const lines: string[] = [];
    await runScenarios(
      [
        failing('one', false),
        failing('many', true),
        cpu('c', { setup: async (c) => (seen.push(['c', c.replicas]), { fn: () => {}, teardown: async () => {} }) }),
      ],
      { ...options, replicas: 2, durationSeconds: 0.02, warmupSeconds: 0 },
      (l) => lines.push(l),
    );
    expect(seen).toEqual([
      ['one', 1],
      ['many', 2],
      ['c', 1],
    ]);
    expect(lines.filter((l) => l.startsWith('[')).map((l) => l.includes('2 replicas'))).toEqual([false, true, false]);
  });
});

describe('runCpuLoop', () => {
  it('keeps `concurrency` calls in flight, one when not told, and counts every call', async () => {
    let inFlight = 0;
    let most = 0;
    const fn = async () => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
    };
    const many = await runCpuLoop(fn, 0.05, 8);
    expect(most).toBe(8);
    expect(many.total).toBeGreaterThan(8);
    expect(many.cpuUsPerOp).not.toBeNull();
    most = 0;
    await runCpuLoop(fn, 0.02);
    expect(most).toBe(1);
  });
});

describe('measurement windows', () => {
  const window = (perSecond: number, cpuUsPerOp: number | null, extra: Partial<Measurement> = {}): Measurement => ({
    durationSeconds: 2,
    total: perSecond * 2,
    perSecond,
    latencyMs: { p50: 1, p99: 2, mean: 1, max: 3 },
    cpuSeconds: cpuUsPerOp === null ? null : (cpuUsPerOp * perSecond * 2) / 1e6,
    cpuUsPerOp,
    errors: 1,
    non2xx: 2,
    ...extra,
  });
  const latency = { p50: 5, p99: 9, mean: 5, max: 10 };

  it('takes the median of the windows for the rate and the CPU per operation, sums the rest', () => {
    // One window caught a burst of other work on the host: it moves neither median.
    const combined = combineWindows([window(1000, 50), window(1100, 48), window(600, 90)], latency);
    expect(combined.perSecond).toBe(1000);
    expect(combined.cpuUsPerOp).toBe(50);
    expect(combined.total).toBe(5400);
    expect(combined.durationSeconds).toBe(6);
    expect(combined.cpuSeconds).toBeCloseTo(0.1 + 0.1056 + 0.108, 9);
    expect(combined.errors).toBe(3);
    expect(combined.non2xx).toBe(6);
    expect(combined.latencyMs).toBe(latency);
    expect(combined.windows).toEqual([
      { perSecond: 1000, cpuUsPerOp: 50 },
      { perSecond: 1100, cpuUsPerOp: 48 },
      { perSecond: 600, cpuUsPerOp: 90 },
    ]);
  });

  it('takes the median of the main thread’s CPU per operation, when every window has it', () => {
    const main = (perSecond: number, cpu: number, mainCpu: number | null) => ({
      ...window(perSecond, cpu),
      mainThreadCpuUsPerOp: mainCpu,
    });
    expect(combineWindows([main(1000, 50, 20), main(1100, 48, 19), main(600, 90, 60)], latency)).toMatchObject({
      cpuUsPerOp: 50,
      mainThreadCpuUsPerOp: 20,
    });
    expect(combineWindows([main(1000, 50, 20), main(900, 48, null)], latency).mainThreadCpuUsPerOp).toBeNull();
    expect(combineWindows([window(1000, 50), window(900, 48)], latency)).not.toHaveProperty('mainThreadCpuUsPerOp');
  });

  it('has no CPU figures when a window has none, and one window stays as it was measured', () => {
    const combined = combineWindows([window(1000, 50), window(900, null)], latency);
    expect(combined.cpuUsPerOp).toBeNull();
    expect(combined.cpuSeconds).toBeNull();
    expect(combined.perSecond).toBe(950);
    const single = window(1000, 50);
    expect(combineWindows([single], latency)).toEqual({ ...single, latencyMs: latency });
    expect(() => combineWindows([], latency)).toThrow();
  });

  it('sums the replicas of each window', () => {
    const replicas = (a: number, b: number) => ({ count: 2, requests: [a, b], cpuSeconds: [a / 1000, b / 1000] });
    const combined = combineWindows(
      [window(1000, 50, { replicas: replicas(10, 20) }), window(1000, 50, { replicas: replicas(30, 40) })],
      latency,
    );
    expect(combined.replicas?.requests).toEqual([40, 60]);
    expect(combined.replicas?.cpuSeconds[0]).toBeCloseTo(0.04, 9);
    expect(combined.replicas?.cpuSeconds[1]).toBeCloseTo(0.06, 9);
  });

  it('median: the middle value, or the mean of the two middle ones', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('the harness runs each window of a cpu scenario and counts every call once', async () => {
    let calls = 0;
    const [row] = await runScenarios(
      [cpu('count', { setup: async () => ({ fn: () => void calls++, teardown: async () => {} }) })],
      { ...options, durationSeconds: 0.06, warmupSeconds: 0, windows: 3 },
      () => {},
    );
    const m = row!.measurement!;
    expect(m.windows).toHaveLength(3);
    expect(m.total).toBe(calls);
    expect(m.windows!.every((w) => w.perSecond > 0)).toBe(true);
  });
});

describe('CPU profile summary', () => {
  it('attributes frames to packages', () => {
    expect(packageOf('file:///repo/node_modules/pino/lib/proto.js', 'write', '/repo/')).toBe('pino');
    expect(packageOf('file:///repo/node_modules/@pinojs/redact/index.js', 'redact', '/repo/')).toBe('@pinojs/redact');
    expect(packageOf('file:///repo/packages/platform/src/http/create-app.ts', 'x', '/repo/')).toBe(
      'packages/platform/src/http/create-app.ts',
    );
    expect(packageOf('node:internal/streams/writable', 'end')).toBe('node:internal');
    expect(packageOf('', 'writev')).toBe('(native)');
    expect(packageOf('', '(garbage collector)')).toBe('(garbage collector)');
  });

  it('sums self and inclusive time per function and package, idle apart', () => {
    const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0 });
    const profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)'), children: [2, 4] },
        { id: 2, callFrame: frame('hook', 'file:///r/packages/platform/src/http/create-app.ts'), children: [3] },
        { id: 3, callFrame: frame('redact', 'file:///r/node_modules/@pinojs/redact/index.js') },
        { id: 4, callFrame: frame('(idle)') },
      ],
      samples: [2, 3, 3, 4],
      timeDeltas: [1000, 2000, 1000, 5000],
    };
    const s = summarizeProfile(profile, '/r/');
    expect(s.busyMs).toBe(4);
    expect(s.idleMs).toBe(5);
    const hook = s.functions.find((e) => e.name.startsWith('hook'))!;
    expect(hook).toMatchObject({ self: 1, total: 4, selfShare: 0.25, totalShare: 1 });
    expect(s.packages[0]).toMatchObject({ name: '@pinojs/redact', self: 3, total: 3 });
    expect(formatProfile(s, 5)).toContain('75.0% self   75.0% total  @pinojs/redact');
  });

  it('sets two profiles side by side in µs per operation, scaled to each run’s CPU per operation', () => {
    const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0 });
    const profileOf = (samples: number[]) => ({
      nodes: [
        { id: 1, callFrame: frame('(root)'), children: [2, 3] },
        { id: 2, callFrame: frame('handler', 'file:///r/packages/token-service/src/x.ts') },
        { id: 3, callFrame: frame('query', 'file:///r/node_modules/pg/lib/client.js') },
      ],
      samples,
      timeDeltas: samples.map(() => 1000),
    });
    // a: 3 of 4 samples in the handler, 400 µs/op; b: 1 of 4, 200 µs/op.
    const a = { summary: summarizeProfile(profileOf([2, 2, 2, 3]), '/r/'), usPerOp: 400 };
    const b = { summary: summarizeProfile(profileOf([2, 3, 3, 3]), '/r/'), usPerOp: 200 };
    const rows = compareProfiles(a, b);
    expect(rows).toEqual([
      { name: 'packages/token-service/src/x.ts', a: 300, b: 50 },
      { name: 'pg', a: 100, b: 150 },
    ]);
    expect(compareProfiles(a, b, 'functions').map((r) => r.name)).toEqual([
      'handler packages/token-service/src/x.ts:1',
      'query pg:1',
    ]);
    const text = formatComparison(rows, 5).split('\n');
    expect(text[1]).toBe('   400.0   200.0  +200.0  all');
    expect(text.slice(2)).toEqual([
      'more in a:',
      '   300.0    50.0  +250.0  packages/token-service/src/x.ts',
      'less in a:',
      '   100.0   150.0   -50.0  pg',
    ]);
  });
});

describe('goals read in turn with their references', () => {
  const windowed = (cpuUsPerOp: number[]): Measurement =>
    measurement(1000, 1, 2, {
      cpuUsPerOp: median(cpuUsPerOp),
      windows: cpuUsPerOp.map((c) => ({ perSecond: 1e6 / c, cpuUsPerOp: c })),
    });

  it('takes the median of the rounds’ ratios, which a slow spell moving both sides leaves alone', () => {
    // The host slows down in rounds 2 and 4 (both sides four times slower); in round 5 only the scenario is slow.
    const work = windowed([20, 80, 20, 80, 80]);
    const base = windowed([10, 40, 10, 40, 10]);
    expect(interleavedRatio(work, base, true)!.perCore).toBe(0.5);
    expect(interleavedRatio(work, base, true)!.throughput).toBe(0.5);
    // The medians taken apart compare a slow scenario with a quick baseline.
    expect(computeRatio(work, base, true)!.perCore).toBe(0.125);
    // Windows that do not pair up give the plain ratio.
    expect(interleavedRatio(work, windowed([10, 40]), true)).toEqual(computeRatio(work, windowed([10, 40]), true));
  });

  it('gives the middle half of the rounds with the median, and says where the goal lies in it', () => {
    expect(quartiles([1, 2, 3, 4, 5])).toEqual([2, 4]);
    expect(quartiles([4, 1, 3, 2])).toEqual([1.75, 3.25]);
    expect(quartiles([7])).toEqual([7, 7]);
    // Per-core ratios of the five rounds: 0.4, 0.45, 0.5, 0.55, 0.6.
    const work = windowed([100, 100, 100, 100, 100]);
    const base = windowed([40, 45, 50, 55, 60]);
    const ratio = interleavedRatio(work, base, true)!;
    expect(ratio.perCore).toBeCloseTo(0.5, 10);
    expect(ratio.spread!.rounds).toBe(5);
    expect(ratio.spread!.perCore![0]).toBeCloseTo(0.45, 10);
    expect(ratio.spread!.perCore![1]).toBeCloseTo(0.55, 10);
    const baseRow = evaluate(cpu('base'), { measurement: windowed([50, 50, 50, 50, 50]) }, null);
    const judged = (minRatio: number) =>
      evaluate(
        cpu('work', { baseline: 'base', goal: { minRatio, basis: 'per-core', text: 'x' } }),
        { measurement: work, interleaved: { base } },
        baseRow,
      );
    expect(formatSpread([judged(0.52)])).toEqual([
      'work vs base: per-core 50.0%, middle half of 5 rounds 45.0%-55.0%; goal >= 52.0% lies within it',
    ]);
    expect(formatSpread([judged(0.4)])[0]).toMatch(/goal >= 40\.0% lies below it$/);
    expect(formatSpread([judged(0.6)])[0]).toMatch(/goal >= 60\.0% lies above it$/);
    expect(formatAlerts([judged(0.52)])).toEqual([
      "!!! MISS  work: 50.0% of base's per-core rate; middle half of the rounds 45.0%-55.0%, goal >= 52.0% (x)",
    ]);
    // Read on the reference's own row there are no rounds, and no line.
    expect(
      formatSpread([
        evaluate(
          cpu('work', { baseline: 'base', goal: { minRatio: 0.5, basis: 'per-core', text: 'x' } }),
          { measurement: work },
          baseRow,
        ),
      ]),
    ).toEqual([]);
  });

  it('judges a goal on the reference measured beside the scenario, not on the reference’s own row', () => {
    const base = evaluate(cpu('base'), { measurement: windowed([10, 10, 10]) }, null);
    const work = cpu('work', { baseline: 'base', goal: { minRatio: 0.4, basis: 'per-core', text: 'x' } });
    const beside = windowed([40, 40, 40]);
    const row = evaluate(work, { measurement: windowed([80, 80, 80]), interleaved: { base: beside } }, base);
    expect(row.status).toBe('PASS');
    expect(row.goals[0]).toMatchObject({ interleaved: true, value: 0.5 });
    expect(row.ratio!.perCore).toBe(0.5);
    expect(row.interleaved).toEqual({ base: beside });
    // Read separately, the same figures miss.
    expect(evaluate(work, { measurement: windowed([80, 80, 80]) }, base)).toMatchObject({
      status: 'MISS',
      goals: [{ interleaved: false, value: 0.125 }],
    });
    // A reference that failed too often beside the scenario is read on its own row, and the goal says so.
    const failed = { ...beside, non2xx: beside.total };
    expect(
      evaluate(work, { measurement: windowed([80, 80, 80]), interleaved: { base: failed } }, base).goals[0],
    ).toMatchObject({ interleaved: false, value: 0.125 });
    expect(formatInterleaved([base, row], 3)).toEqual([
      'work: in turn with base 40.0 us/op (ratios: medians of 3 rounds)',
    ]);
    // The main thread's share, when the server's was measured, for the row and the references beside it.
    const split = (m: Measurement, main: number) => ({ ...m, mainThreadCpuUsPerOp: main });
    const measured = { ...row, measurement: split(row.measurement!, 20), interleaved: { base: split(beside, 10) } };
    expect(formatMainThread([base, measured])).toEqual([
      'main thread: work 20.0 of 80.0 us/op (25.0%); in turn: base 10.0 of 40.0 us/op (25.0%)',
    ]);
  });

  it('sets the references up beside the scenario, measures them in turn and tears everything down', async () => {
    const events: string[] = [];
    const traced = (name: string, extra: Partial<Scenario> = {}): Scenario =>
      cpu(name, {
        async setup() {
          events.push(`setup ${name}`);
          return {
            fn: () => void events.push(`call ${name}`),
            teardown: async () => void events.push(`teardown ${name}`),
          };
        },
        ...extra,
      });
    const lines: string[] = [];
    const rows = await runScenarios(
      [
        traced('base', { confirm: true }),
        traced('floor'),
        traced('work', {
          baseline: 'base',
          goal: [
            { minRatio: 0.000001, basis: 'per-core', text: 'any' },
            { minRatio: 0.000001, against: 'floor', text: 'any' },
          ],
        }),
      ],
      { ...options, durationSeconds: 0.06, warmupSeconds: 0, windows: 3, interleave: true },
      (l) => lines.push(l),
    );
    const setups = events.filter((e) => !e.startsWith('call'));
    expect(setups).toEqual([
      'setup base',
      'teardown base',
      'setup floor',
      'teardown floor',
      'setup work',
      'setup base',
      'setup floor',
      'teardown floor',
      'teardown base',
      'teardown work',
    ]);
    // Within the work's measurement, the three take turns: work, base, floor, work, ...
    const during = events.slice(events.lastIndexOf('setup floor') + 1, events.lastIndexOf('teardown floor'));
    const turns = during.filter((e, k) => e !== during[k - 1]);
    expect(turns).toEqual([
      'call work',
      'call base',
      'call floor',
      'call work',
      'call base',
      'call floor',
      'call work',
      'call base',
      'call floor',
    ]);
    expect(lines[2]).toMatch(/^\[3\/3\] work: .*, in turn with base, floor$/);
    const row = rows.find((r) => r.name === 'work')!;
    expect(Object.keys(row.interleaved!)).toEqual(['base', 'floor']);
    expect(row.interleaved!.base!.windows).toHaveLength(3);
    expect(row.goals.map((g) => g.interleaved)).toEqual([true, true]);
    expect(row.status).toBe('PASS');
    // Nothing reads the baseline's own row for a goal, so it is not measured a second time.
    expect(rows.find((r) => r.name === 'base')!.confirmation).toBeUndefined();
  });
});

describe('confirmed baselines', () => {
  it('the stricter measurement: lowest CPU per operation, else the highest rate', () => {
    expect(
      stricterMeasurement([measurement(100, 1, 2, { cpuUsPerOp: 40 }), measurement(90, 1, 2, { cpuUsPerOp: 25 })]),
    ).toBe(1);
    expect(
      stricterMeasurement([measurement(100, 1, 2, { cpuUsPerOp: 24 }), measurement(150, 1, 2, { cpuUsPerOp: 30 })]),
    ).toBe(0);
    expect(
      stricterMeasurement([measurement(100, 1, 2, { cpuUsPerOp: null }), measurement(150, 1, 2, { cpuUsPerOp: 30 })]),
    ).toBe(1);
    expect(() => stricterMeasurement([])).toThrow();
  });

  /** A cpu baseline whose first setup is slow (each call waits `slowMs`) and whose later setups are quick. */
  const slowThenQuick = (name: string, slowMs: number, setups: string[]): Scenario =>
    cpu(name, {
      confirm: true,
      async setup() {
        const first = !setups.includes(name);
        setups.push(name);
        const wait = first ? slowMs : 0;
        return {
          fn: () => {
            const until = performance.now() + wait;
            while (performance.now() < until);
          },
          teardown: async () => {},
        };
      },
    });

  it('measures a confirmed baseline again at the end and reads every ratio against the stricter measurement', async () => {
    const setups: string[] = [];
    const work = cpu('work', {
      baseline: 'base',
      goal: { minRatio: 0.5, basis: 'per-core', text: 'half the baseline per core' },
      setup: async () => ({
        fn: () => {
          const until = performance.now() + 0.5;
          while (performance.now() < until);
        },
        teardown: async () => {},
      }),
    });
    const lines: string[] = [];
    const rows = await runScenarios(
      [slowThenQuick('base', 2, setups), work],
      { ...options, durationSeconds: 0.3, warmupSeconds: 0 },
      (l) => lines.push(l),
    );
    expect(setups).toEqual(['base', 'base']);
    expect(lines.map((l) => l.replace(/:.*/, ''))).toEqual(['[1/3] base', '[2/3] work', '[3/3] base again']);
    const base = rows.find((r) => r.name === 'base')!;
    const [first, second] = base.confirmation!.measurements;
    // The first measurement spent ~2 ms per call, the second almost nothing: the second is the stricter.
    expect(first!.cpuUsPerOp!).toBeGreaterThan(second!.cpuUsPerOp! * 5);
    expect(base.confirmation!.used).toBe(1);
    expect(base.measurement).toBe(second);
    // Against the slow first measurement the work (0.5 ms per call) would have passed; against the second it misses.
    const row = rows.find((r) => r.name === 'work')!;
    expect(row.ratio!.perCore!).toBeCloseTo(second!.cpuUsPerOp! / row.measurement!.cpuUsPerOp!, 6);
    expect(first!.cpuUsPerOp! / row.measurement!.cpuUsPerOp!).toBeGreaterThan(0.5);
    expect(row.status).toBe('MISS');
    expect(formatConfirmations(rows)).toEqual([
      expect.stringMatching(
        /^baseline base measured at the start \(.+ us\/op at .+\/s\) and at the end \(.+\); ratios read against the one at the end$/,
      ),
    ]);
  });

  it('keeps the first measurement when it is the stricter one', async () => {
    const setups: string[] = [];
    const quickThenSlow = cpu('base', {
      confirm: true,
      async setup() {
        const wait = setups.push('base') === 1 ? 0 : 2;
        return {
          fn: () => {
            const until = performance.now() + wait;
            while (performance.now() < until);
          },
          teardown: async () => {},
        };
      },
    });
    const rows = await runScenarios(
      [
        quickThenSlow,
        cpu('user', { baseline: 'base', setup: async () => ({ fn: () => {}, teardown: async () => {} }) }),
      ],
      { ...options, durationSeconds: 0.2, warmupSeconds: 0 },
      () => {},
    );
    const base = rows.find((r) => r.name === 'base')!;
    expect(base.confirmation!.used).toBe(0);
    expect(base.measurement).toBe(base.confirmation!.measurements[0]);
    expect(formatConfirmations(rows)[0]).toMatch(/ratios read against the first$/);
  });

  it('measures a confirmed baseline once when nothing in the run reads it', async () => {
    const setups: string[] = [];
    const lines: string[] = [];
    const rows = await runScenarios(
      [
        slowThenQuick('base', 0, setups),
        cpu('other', { setup: async () => ({ fn: () => {}, teardown: async () => {} }) }),
      ],
      { ...options, durationSeconds: 0.05, warmupSeconds: 0 },
      (l) => lines.push(l),
    );
    expect(setups).toEqual(['base']);
    expect(lines).toHaveLength(2);
    expect(rows.every((r) => r.confirmation === undefined)).toBe(true);
    expect(formatConfirmations(rows)).toEqual([]);
  });

  it('the real bare route is a confirmed baseline', () => {
    expect(registry.find((s) => s.name === 'bare-route')!.confirm).toBe(true);
  });
});
