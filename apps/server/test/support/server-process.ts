import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const ROOT = join(import.meta.dirname, '../../../..');

/** One server process of a deployment, as `npm start` runs it, with its own environment. */
export interface ServerProcess {
  name: string;
  /** Its output so far (stdout and stderr), for the message of a failed test. */
  output(): string;
  /**
   * SIGTERM, then the exit code once it has exited (0: a clean stop). After 15 s it is killed, and the answer is
   * `'killed'`.
   */
  stop(): Promise<number | 'killed'>;
}

/**
 * Starts `apps/server/src/main.ts` in its own node process and waits until every URL of `readyUrls` answers
 * `GET /ready` with 200. A process that exits first, or does not get ready within `timeoutMs`, fails with its output.
 */
export async function startServerProcess(
  name: string,
  env: Record<string, string>,
  readyUrls: readonly string[],
  timeoutMs = 90_000,
): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  let exited: number | null | undefined;
  const exit = new Promise<void>((resolve) =>
    child.on('exit', (code) => {
      exited = code;
      resolve();
    }),
  );
  let killed = false;
  const handle: ServerProcess = {
    name,
    output: () => output,
    async stop() {
      if (exited === undefined) {
        child.kill('SIGTERM');
        const stopped = await Promise.race([exit.then(() => true), sleep(15_000).then(() => false)]);
        if (!stopped) {
          killed = true;
          child.kill('SIGKILL');
          await exit;
        }
      }
      return killed || exited === null || exited === undefined ? 'killed' : exited;
    },
  };
  const deadline = Date.now() + timeoutMs;
  for (const url of readyUrls) {
    for (;;) {
      if (exited !== undefined) throw new Error(`${name} exited with ${exited} before it was ready:\n${output}`);
      if (Date.now() > deadline) {
        await handle.stop();
        throw new Error(`${name} was not ready at ${url} within ${timeoutMs} ms:\n${output}`);
      }
      const ready = await fetch(`${url}/ready`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (ready) break;
      await sleep(250);
    }
  }
  return handle;
}
