import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRoundRobinProxy, type RoundRobinProxy } from '@tessera/platform/testing';
import { spawnServer, type ServerChild } from './http.js';
import { REPLICA_ENV } from './replica.js';
import type { ScenarioSetup, SetupContext } from './types.js';

export interface ServerInDataDirOptions {
  /** Extra environment of the child besides BENCH_DATA_DIR. */
  env?: Record<string, string>;
  readyTimeoutMs?: number;
}

/**
 * Setup of an http scenario whose server is `bench/servers/<server>.ts` (a server elsewhere is named by a path
 * relative to that folder): the child gets a fresh temporary directory (`BENCH_DATA_DIR`, for an embedded database,
 * key files and what it hands to the load generator), removed after the child has exited, or at once when the
 * setup fails. `describe` reads what the child wrote and gives the scenario's URL and requests.
 */
export async function serverInDataDir(
  server: string,
  context: SetupContext,
  options: ServerInDataDirOptions,
  describe: (child: ServerChild, dataDir: string) => Promise<Omit<ScenarioSetup, 'teardown' | 'serverPid'>>,
): Promise<ScenarioSetup> {
  if (context.replicas > 1) return replicasInDataDir(server, context, options, describe);
  const dataDir = await mkdtemp(join(tmpdir(), `tessera-bench-${server.split('/').pop()}-`));
  let child: ServerChild | undefined;
  try {
    child = await spawnServer(server, {
      pin: context.pin,
      root: context.serversRoot,
      cpuProfDir: context.cpuProfDir,
      env: { ...options.env, BENCH_DATA_DIR: dataDir },
      ...(options.readyTimeoutMs === undefined ? {} : { readyTimeoutMs: options.readyTimeoutMs }),
    });
    const described = await describe(child, dataDir);
    const running = child;
    return {
      ...described,
      serverPid: running.pid,
      async teardown() {
        await running.stop();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await child?.stop();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * `--replicas n`: n children of the same server script share one data directory and one database (replica 0
 * seeds, bench/lib/replica.ts), behind the test load balancer (round robin per request, upstream connections kept
 * alive) in this process. The load generator and `describe` see the balancer's URL; the CPU per request is summed
 * over the replicas. Replicas stop in reverse order, so that replica 0 drops the database last.
 */
async function replicasInDataDir(
  server: string,
  context: SetupContext,
  options: ServerInDataDirOptions,
  describe: (child: ServerChild, dataDir: string) => Promise<Omit<ScenarioSetup, 'teardown' | 'serverPid'>>,
): Promise<ScenarioSetup> {
  const dataDir = await mkdtemp(join(tmpdir(), `tessera-bench-${server.split('/').pop()}-`));
  const children: ServerChild[] = [];
  let proxy: RoundRobinProxy | undefined;
  const stopAll = async () => {
    for (const child of [...children].reverse()) await child.stop();
    await proxy?.close();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    proxy = await startRoundRobinProxy('127.0.0.1', 0, { keepAlive: true });
    for (let index = 0; index < context.replicas; index++) {
      children.push(
        await spawnServer(server, {
          pin: context.pin,
          root: context.serversRoot,
          cpuProfDir: context.cpuProfDir,
          env: {
            ...options.env,
            BENCH_DATA_DIR: dataDir,
            [REPLICA_ENV.index]: String(index),
            [REPLICA_ENV.count]: String(context.replicas),
            [REPLICA_ENV.publicUrl]: proxy.url,
          },
          ...(options.readyTimeoutMs === undefined ? {} : { readyTimeoutMs: options.readyTimeoutMs }),
        }),
      );
    }
    const balancer = proxy;
    balancer.setTargets(children.map((c) => c.url));
    const described = await describe({ url: balancer.url, pid: children[0]!.pid, stop: stopAll }, dataDir);
    return {
      ...described,
      replicaPids: children.map((c) => c.pid),
      replicaRequests: () => balancer.counts,
      teardown: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** A server answering `GET <path>` (default `/bench`), nothing handed over. */
export function serverSetup(server: string, context: SetupContext, path = '/bench'): Promise<ScenarioSetup> {
  return serverInDataDir(server, context, {}, async (child) => ({ url: new URL(path, child.url).toString() }));
}
