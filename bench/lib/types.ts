import type autocannon from 'autocannon';

/** `http`: requests from the load generator against a server in a child process; `cpu`: a function in a loop. */
export type ScenarioKind = 'http' | 'cpu';

export interface ScenarioGoal {
  /** The scenario passes when its throughput is at least this fraction of its baseline's, measured in the same run. */
  minRatio: number;
  /**
   * Which ratio the goal is about: `throughput` (default; req/s or ops/s over the baseline's) or `per-core`
   * (operations per CPU second over the baseline's, e.g. tokens per second per core against RS256 signatures
   * per second on one core). Per-core needs CPU figures for both (http servers: Linux).
   */
  basis?: 'throughput' | 'per-core';
  /**
   * The scenario the ratio is taken against (default: the scenario's `baseline`), e.g. a floor or a reference
   * implementation. It is measured in the same run, before this scenario, as a baseline is.
   */
  against?: string;
  /**
   * A latency bound as well (issue 20: "p99 under 50 ms at 50 connections"): the goal is met only when the scenario's
   * own p99 is at most this many milliseconds, whatever the ratio.
   */
  maxP99Ms?: number;
  /** The goal as the issue states it, printed beside the result. */
  text: string;
}

/** One goal judged: the ratio it is read on (null when it could not be computed) and whether it is met. */
/**
 * Throughput ratio, per-core ratio and p99 ratio; read in turn, also how far the rounds' ratios spread: their
 * quartiles (the middle half of the rounds lies between the two), which tell a MISS or PASS within the host's noise
 * from a clear one.
 */
export interface Ratios {
  throughput: number;
  perCore: number | null;
  p99: number | null;
  spread?: { rounds: number; throughput: [number, number]; perCore: [number, number] | null };
}

export interface GoalResult extends ScenarioGoal {
  against: string;
  /** The ratios to the scenario named by `against` (as `ScenarioResult.ratio` is to the baseline). */
  ratio: Ratios | null;
  /** The ratio of the goal's basis. */
  value: number | null;
  /** The scenario's p99 in ms when the goal bounds it (maxP99Ms), else null. */
  p99Ms: number | null;
  met: boolean | null;
  /** Why the goal could not be judged (the scenario it is read against has no figures, no CPU figures). */
  error: string | null;
  /**
   * The ratio is read against the reference measured in turn with the scenario (`ScenarioResult.interleaved`),
   * round by round, rather than against the reference's own row.
   */
  interleaved: boolean;
}

/** What a scenario's setup hands the harness: a target for `http`, a function for `cpu`, and how to clean up. */
export interface ScenarioSetup {
  /** Base URL of the server under test (`http`). */
  url?: string;
  /** The request sequence each connection repeats (`http`; default: one `GET /bench`). */
  requests?: autocannon.Request[];
  /** The server child (`http`): its CPU time during the measurement gives the CPU cost per request. */
  serverPid?: number;
  /**
   * `--replicas n` (n > 1): every replica's process, in the load balancer's target order; the CPU cost per request
   * is summed over them (serverPid is then unused).
   */
  replicaPids?: number[];
  /** `--replicas n`: requests the load balancer has forwarded to each replica so far. */
  replicaRequests?: () => readonly number[];
  /**
   * The status every response should have (`http`; default any 2xx): a conditional request's 304, say. Latency is
   * recorded for these responses only, and any other status counts as a failure.
   */
  expectedStatus?: number;
  /** One operation (`cpu`); a returned promise is awaited before the next call. */
  fn?: () => void | Promise<void>;
  teardown(): Promise<void>;
}

export interface Scenario {
  /** Unique, kebab-case; what `--only` and `baseline` refer to. */
  name: string;
  description: string;
  kind: ScenarioKind;
  /** Name of the scenario whose figures this one is compared with; it is measured in the same run. */
  baseline?: string;
  /**
   * What the scenario must reach: one goal, or several (each against its own scenario, e.g. the floor and the
   * reference implementation). The scenario passes when every goal is met.
   */
  goal?: ScenarioGoal | readonly ScenarioGoal[];
  /**
   * `cpu` scenarios: calls of `fn` kept in flight at once (default 1: back to back), e.g. 32 concurrent proofs whose
   * store round trips can share one batch.
   */
  concurrency?: number;
  /**
   * A baseline measured twice: where the run starts, and again once every other scenario has run. Ratios are read
   * against the stricter of the two (lower CPU per operation; the higher rate when there are no CPU figures), so
   * that a baseline that happened to run slow cannot make a goal pass (bench/README.md, "Confirmed baselines").
   */
  confirm?: boolean;
  /** Concurrent connections (`http`); an explicit `--connections` wins, the default is 50. */
  connections?: number;
  /**
   * The server can run as several replicas on one PostgreSQL database behind a round-robin load balancer
   * (`--replicas n`): it creates its shared state only as replica 0 (bench/lib/replica.ts). Other http scenarios
   * run as one server whatever `--replicas` says.
   */
  replicable?: boolean;
  setup(context: SetupContext): Promise<ScenarioSetup>;
}

/** What the harness tells a scenario's setup. */
export interface SetupContext {
  /** `--pin`: start server children with `spawnServer(name, { pin: true })`. */
  pin: boolean;
  /** `--cpu-prof <dir>`: give server children `BENCH_CPU_PROF_DIR` (spawnServer does it when told). */
  cpuProfDir: string | null;
  /** Server processes to start (1 unless `--replicas n` and the scenario is `replicable`). */
  replicas: number;
  /** `--against <ref>`: the checkout whose servers to start (spawnServer's `root`); absent: this repository's. */
  serversRoot?: string | undefined;
}

/** The raw figures of one measurement. Latencies in milliseconds (per request for `http`, per call for `cpu`). */
export interface Measurement {
  durationSeconds: number;
  /** Completed requests (2xx and others) or calls. */
  total: number;
  /** total / durationSeconds. */
  perSecond: number;
  latencyMs: { p50: number; p99: number; mean: number; max: number };
  /**
   * CPU seconds spent during the measurement by the server child (`http`, Linux only, else null) or by this
   * process (`cpu`). Steadier than throughput on a busy machine, and the base of per-core figures.
   */
  cpuSeconds: number | null;
  /** cpuSeconds / total, in microseconds. */
  cpuUsPerOp: number | null;
  /**
   * `http` with one server process (Linux): the part of cpuUsPerOp spent on the server's main thread (its event
   * loop); the rest went to its other threads (the libuv pool, garbage collection). Absent otherwise.
   */
  mainThreadCpuUsPerOp?: number | null;
  /** `http` only: connection errors and timeouts. */
  errors: number;
  /** `http` only: responses with a status outside 2xx (or other than the scenario's `expectedStatus`). */
  non2xx: number;
  /** `http` only. */
  connections?: number;
  /**
   * `--replicas n` only: per replica (load-balancer order), the requests forwarded to it and its CPU seconds during
   * the measurement; cpuSeconds above is their sum.
   */
  replicas?: { count: number; requests: number[]; cpuSeconds: (number | null)[] };
  /**
   * Measured in several windows (`--windows n`, bench/lib/windows.ts): each window's rate and CPU per operation;
   * perSecond and cpuUsPerOp above are their medians.
   */
  windows?: { perSecond: number; cpuUsPerOp: number | null }[];
}

export type Status = 'PASS' | 'MISS' | 'NO GOAL' | 'ERROR';

/** One row of the report and of the JSON file. */
export interface ScenarioResult {
  name: string;
  description: string;
  kind: ScenarioKind;
  unit: 'req/s' | 'ops/s';
  baseline: string | null;
  measurement: Measurement | null;
  /**
   * Throughput ratio, per-core ratio (baseline CPU per operation / this one's; null without CPU figures) and p99
   * ratio (p99 / baseline p99, only between scenarios of the same kind).
   */
  ratio: Ratios | null;
  /** The first goal (compatibility with single-goal readers); `goals` holds every goal. */
  goal: (ScenarioGoal & { met: boolean | null }) | null;
  goals: GoalResult[];
  status: Status;
  /** Why the scenario has no figures, or why its figures are not trusted. */
  error: string | null;
  /**
   * A confirmed baseline (Scenario.confirm): both of its measurements, in the order taken, and which one
   * `measurement` (and so every ratio read against it) is.
   */
  confirmation?: { measurements: Measurement[]; used: number };
  /**
   * The references of the goals (and the baseline, when a goal reads it), each measured again beside this scenario:
   * warmed up with it, then one window each in turn, `--windows` rounds (bench/README.md, "Goals read in turn"). Its goals'
   * ratios are the medians of the rounds' ratios.
   */
  interleaved?: Record<string, Measurement>;
}

export interface RunOptions {
  durationSeconds: number;
  warmupSeconds: number;
  /** Set when `--connections` was given: it overrides the scenarios' own counts. */
  connections: number | null;
  only: string[] | null;
  jsonPath: string | null;
  /** Pin the server child and the parent to separate cores with `taskset` (Linux). */
  pin: boolean;
  /** `--cpu-prof <dir>`: server children write a V8 CPU profile of the load phase there. */
  cpuProfDir: string | null;
  /** `--replicas n`: replicable http scenarios run n servers on one database behind a round-robin balancer. */
  replicas: number;
  /** `--windows n`: the measured time is split into n windows; rate and CPU per operation are their medians. */
  windows: number;
  /**
   * Goals are read against their references measured in turn with the scenario (default; `--separately` turns
   * it off, and goals read the references' own rows).
   */
  interleave: boolean;
}

export interface RunReport {
  schema: 'tessera-bench/1';
  startedAt: string;
  finishedAt: string;
  options: {
    durationSeconds: number;
    warmupSeconds: number;
    connections: number | null;
    only: string[] | null;
    pin: boolean;
    cpuProfDir: string | null;
    replicas: number;
    windows: number;
    interleave: boolean;
  };
  environment: { node: string; platform: string; arch: string; cpus: number; cpuModel: string };
  scenarios: ScenarioResult[];
}
