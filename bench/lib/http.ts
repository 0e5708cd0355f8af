import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { LatencyHistogram, latencyOf } from './histogram.js';
import { parseReadyLine } from './server-child.js';
import { processCpuSeconds } from './proc.js';
import type { Measurement } from './types.js';

/**
 * How long a server child may take to announce its URL. Start-up migrates an embedded database and compiles the
 * TypeScript it loads; on a machine shared with other work that took over two minutes, which is slow, not broken.
 */
const DEFAULT_READY_TIMEOUT_MS = 240_000;

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SERVERS_DIR = fileURLToPath(new URL('../servers/', import.meta.url));

/** Core the server child is pinned to with `--pin`; the parent (load generator) takes core 0. */
export const SERVER_CPU = 1;
export const LOAD_CPU = 0;

export interface ServerChild {
  url: string;
  pid: number;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the child has exited. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnServerOptions {
  /**
   * The checkout whose `bench/servers/` holds the script, and the child's working directory: the repository by
   * default, another commit's checkout for `--against` (bench/lib/against.ts).
   */
  root?: string | undefined;
  /** Extra environment of the child (added to the parent's, minus OTEL_* so that tracing stays off). */
  env?: Record<string, string>;
  /** Pin the child to SERVER_CPU with taskset. */
  pin?: boolean;
  /** Directory for the child's CPU profile of the load phase (BENCH_CPU_PROF_DIR). */
  cpuProfDir?: string | null;
  readyTimeoutMs?: number;
}

/** The child's environment: the parent's without OpenTelemetry settings, logs discarded unless told otherwise. */
export function childEnv(parent: NodeJS.ProcessEnv, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(parent)) if (!k.startsWith('OTEL_') && v !== undefined) env[k] = v;
  return { BENCH_LOG_FILE: '/dev/null', ...env, ...extra };
}

/**
 * Starts `bench/servers/<name>.ts` in a child process (`node --import tsx`) and resolves with the URL it announces
 * on stdout. The child's stderr is kept (last 8 KiB) for the error message when it dies or never gets ready.
 */
export async function spawnServer(name: string, options: SpawnServerOptions = {}): Promise<ServerChild> {
  const root = options.root ?? REPO_ROOT;
  const script = options.root === undefined ? `${SERVERS_DIR}${name}.ts` : join(root, 'bench', 'servers', `${name}.ts`);
  const nodeArgs = ['--import', 'tsx', script];
  const [command, args] = options.pin
    ? ['taskset', ['-c', String(SERVER_CPU), process.execPath, ...nodeArgs]]
    : [process.execPath, nodeArgs];
  const child = spawn(command as string, args as string[], {
    cwd: root,
    env: childEnv(process.env, {
      ...options.env,
      ...(options.cpuProfDir ? { BENCH_CPU_PROF_DIR: options.cpuProfDir } : {}),
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderrTail = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-8192);
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const describeExit = ([code, signal]: [number | null, NodeJS.Signals | null]) =>
    `server "${name}" exited (${signal ?? `code ${code}`}) before announcing its URL${stderrTail ? `:\n${stderrTail.trim()}` : ''}`;

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `server "${name}" did not announce its URL within ${options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS} ms${stderrTail ? `:\n${stderrTail.trim()}` : ''}`,
        ),
      );
    }, options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const found = parseReadyLine(line);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    exited.then((info) => {
      clearTimeout(timer);
      reject(new Error(describeExit(info)));
    }, reject);
  });

  return {
    url,
    pid: child.pid!,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface HttpLoadOptions {
  url: string;
  requests?: autocannon.Request[];
  connections: number;
  durationSeconds: number;
  /** The server's process, whose CPU time is read before and after the run. */
  serverPid?: number;
  /** Replicas (instead of serverPid): each one's CPU time is read, and the sum is the server's. */
  replicaPids?: number[];
  /** Requests the load balancer has forwarded to each replica so far (read before and after the run). */
  replicaRequests?: () => readonly number[];
  /** The one status the responses should have (default: any 2xx). */
  expectedStatus?: number;
}

/**
 * One autocannon run. Latency comes from the per-response times (sub-millisecond; autocannon's own histogram
 * rounds to whole milliseconds), of 2xx responses only, as autocannon counts them.
 */
export async function runHttpLoad(options: HttpLoadOptions, histogram = new LatencyHistogram()): Promise<Measurement> {
  const expected = options.expectedStatus;
  let unexpected = 0;
  const pids = options.replicaPids ?? (options.serverPid ? [options.serverPid] : []);
  const cpuBefore = pids.map(processCpuSeconds);
  const requestsBefore = options.replicaRequests ? [...options.replicaRequests()] : [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        duration: options.durationSeconds,
        pipelining: 1,
        timeout: 10,
        ...(options.requests ? { requests: options.requests } : {}),
      },
      (error: unknown, res: autocannon.Result) =>
        error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(res),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (expected ? statusCode === expected : statusCode >= 200 && statusCode < 300) histogram.record(responseTime);
      else unexpected++;
    });
  });
  const cpuAfter = pids.map(processCpuSeconds);
  const cpuEach = pids.map((_, i) => {
    const [before, after] = [cpuBefore[i], cpuAfter[i]];
    return before != null && after != null ? after - before : null;
  });
  const cpuSeconds =
    cpuEach.length > 0 && cpuEach.every((c) => c !== null) ? (cpuEach as number[]).reduce((a, b) => a + b, 0) : null;
  const total = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
  return {
    durationSeconds: result.duration,
    total,
    perSecond: result.duration > 0 ? total / result.duration : 0,
    latencyMs: latencyOf(histogram),
    cpuSeconds,
    cpuUsPerOp: cpuSeconds !== null && total > 0 ? (cpuSeconds / total) * 1e6 : null,
    errors: result.errors,
    non2xx: expected ? unexpected : result.non2xx,
    connections: options.connections,
    ...(options.replicaPids
      ? {
          replicas: {
            count: options.replicaPids.length,
            requests: options.replicaRequests
              ? options.replicaRequests().map((n, i) => n - (requestsBefore[i] ?? 0))
              : [],
            cpuSeconds: cpuEach,
          },
        }
      : {}),
  };
}
