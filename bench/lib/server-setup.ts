import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer, type ServerChild } from './http.js';
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
  const dataDir = await mkdtemp(join(tmpdir(), `tessera-bench-${server.split('/').pop()}-`));
  let child: ServerChild | undefined;
  try {
    child = await spawnServer(server, {
      pin: context.pin,
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

/** A server answering `GET <path>` (default `/bench`), nothing handed over. */
export function serverSetup(server: string, context: SetupContext, path = '/bench'): Promise<ScenarioSetup> {
  return serverInDataDir(server, context, {}, async (child) => ({ url: new URL(path, child.url).toString() }));
}
