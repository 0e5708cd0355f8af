import { parseArgs } from 'node:util';
import type { RunOptions } from './types.js';

export const DEFAULT_DURATION_SECONDS = 10;
export const DEFAULT_WARMUP_SECONDS = 2;
export const DEFAULT_CONNECTIONS = 50;
export const DEFAULT_WINDOWS = 10;
/** More replicas than this on one machine measure the scheduler, not the servers. */
export const MAX_REPLICAS = 8;

export const USAGE = `Usage: npm run bench -- [options]

  --only <a,b,...>       run only these scenarios (their baselines are added)
  --duration <seconds>   measured time per scenario (default ${DEFAULT_DURATION_SECONDS})
  --warmup <seconds>     unmeasured time before each measurement (default ${DEFAULT_WARMUP_SECONDS})
  --windows <n>          split the measured time into n windows; the rate and the CPU per
                         operation are the windows' medians (default ${DEFAULT_WINDOWS})
  --separately           read goals against their references' own rows, measured before the
                         scenario, instead of measuring them in turn with it (one window each
                         per round, --windows rounds; the default)
  --connections <n>      concurrent connections of every http scenario
                         (default: the scenario's own, else ${DEFAULT_CONNECTIONS})
  --json <path>          result file (default bench/results/<timestamp>.json);
                         bench/results/latest.json is always written too
  --cpu-prof <dir>       servers write a CPU profile of the load phase to <dir>;
                         a summary (top packages and functions) is printed
  --pin                  pin the server to core 1 and the load generator to core 0 (taskset)
  --replicas <n>         run each replicable http scenario as n servers on one database
                         behind a round-robin load balancer (default 1, at most ${MAX_REPLICAS})
  --against <ref>        pair each named http scenario with the same scenario served by
                         another commit (a git ref), measured in turn, and judge it per core
                         against that (a checkout in a temporary directory, sharing
                         node_modules); cpu scenarios are not compared
  --list                 list the scenarios and exit
  --help                 this text`;

export type Command =
  { kind: 'run'; options: RunOptions; against: string | null } | { kind: 'list' } | { kind: 'help' };

export class UsageError extends Error {
  override name = 'UsageError';
}

function positive(
  flag: string,
  raw: string | undefined,
  fallback: number,
  { integer, allowZero }: { integer: boolean; allowZero: boolean },
): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  const ok =
    raw.trim() !== '' &&
    Number.isFinite(value) &&
    (allowZero ? value >= 0 : value > 0) &&
    (!integer || Number.isInteger(value));
  if (!ok)
    throw new UsageError(
      `${flag} must be a ${integer ? 'whole number' : 'number'} ${allowZero ? '>= 0' : '> 0'} (got "${raw}")`,
    );
  return value;
}

/** Parses the arguments after `npm run bench --`. Throws UsageError with a message fit for the terminal. */
export function parseCli(argv: string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        only: { type: 'string', multiple: true },
        duration: { type: 'string' },
        warmup: { type: 'string' },
        connections: { type: 'string' },
        json: { type: 'string' },
        'cpu-prof': { type: 'string' },
        pin: { type: 'boolean', default: false },
        replicas: { type: 'string' },
        windows: { type: 'string' },
        separately: { type: 'boolean', default: false },
        against: { type: 'string' },
        list: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const v = parsed.values;
  if (v.help) return { kind: 'help' };
  if (v.list) return { kind: 'list' };
  const only = v.only
    ? [
        ...new Set(
          v.only
            .flatMap((s) => s.split(','))
            .map((s) => s.trim())
            .filter(Boolean),
        ),
      ]
    : null;
  if (only && only.length === 0) throw new UsageError('--only needs at least one scenario name');
  if (v.json !== undefined && v.json.trim() === '') throw new UsageError('--json needs a path');
  if (v['cpu-prof'] !== undefined && v['cpu-prof'].trim() === '') throw new UsageError('--cpu-prof needs a directory');
  if (v.against !== undefined && v.against.trim() === '') throw new UsageError('--against needs a git ref');
  return {
    kind: 'run',
    options: {
      durationSeconds: positive('--duration', v.duration, DEFAULT_DURATION_SECONDS, {
        integer: false,
        allowZero: false,
      }),
      warmupSeconds: positive('--warmup', v.warmup, DEFAULT_WARMUP_SECONDS, { integer: false, allowZero: true }),
      connections:
        v.connections === undefined
          ? null
          : positive('--connections', v.connections, DEFAULT_CONNECTIONS, { integer: true, allowZero: false }),
      only,
      jsonPath: v.json ?? null,
      pin: v.pin ?? false,
      cpuProfDir: v['cpu-prof'] ?? null,
      replicas: replicaCount(v.replicas),
      windows: positive('--windows', v.windows, DEFAULT_WINDOWS, { integer: true, allowZero: false }),
      interleave: !(v.separately ?? false),
    },
    against: v.against?.trim() ?? null,
  };
}

function replicaCount(raw: string | undefined): number {
  const n = positive('--replicas', raw, 1, { integer: true, allowZero: false });
  if (n > MAX_REPLICAS) throw new UsageError(`--replicas must be at most ${MAX_REPLICAS} (got "${raw}")`);
  return n;
}
