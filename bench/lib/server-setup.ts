import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer } from './http.js';
import type { ScenarioSetup, SetupContext } from './types.js';

/**
 * Setup of an http scenario whose server is `bench/servers/<server>.ts`: the child gets a fresh temporary
 * directory (`BENCH_DATA_DIR`, for an embedded database and key files), removed after the child has exited.
 */
export async function serverSetup(server: string, context: SetupContext, path = '/bench'): Promise<ScenarioSetup> {
  const dataDir = await mkdtemp(join(tmpdir(), `tessera-bench-${server}-`));
  try {
    const child = await spawnServer(server, {
      pin: context.pin,
      cpuProfDir: context.cpuProfDir,
      env: { BENCH_DATA_DIR: dataDir },
    });
    return {
      url: new URL(path, child.url).toString(),
      serverPid: child.pid,
      async teardown() {
        await child.stop();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}
