import { setupClient, type SetupClient } from './setup-client.js';

/**
 * The child side of an `http` scenario: a server script under bench/servers/ calls `logDestinationPath()` for its
 * log output and `announceListening(url)` once it accepts connections; the harness waits for that line.
 */
export const READY_PREFIX = 'BENCH_LISTENING ';

/** Where the server writes its logs: `BENCH_LOG_FILE`, else /dev/null (a write per line, nothing kept). */
export function logDestinationPath(): string {
  return process.env.BENCH_LOG_FILE || '/dev/null';
}

let profiler: { stop(): Promise<void> } | null = null;

/**
 * Tells the harness the server is ready. With `BENCH_CPU_PROF_DIR` set (`npm run bench -- --cpu-prof <dir>`), the
 * V8 profiler starts first, so that the profile covers the load only, not the start (migrations, compilation).
 */
export async function announceListening(url: string): Promise<void> {
  const dir = process.env.BENCH_CPU_PROF_DIR;
  if (dir) {
    const { Session } = await import('node:inspector/promises');
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 250 });
    await session.post('Profiler.start');
    profiler = {
      async stop() {
        const { profile } = await session.post('Profiler.stop');
        const { mkdirSync, writeFileSync } = await import('node:fs');
        const { basename, join } = await import('node:path');
        mkdirSync(dir, { recursive: true });
        const name = basename(process.argv[1] ?? 'server').replace(/\.ts$/, '');
        writeFileSync(join(dir, `${name}.${process.pid}.cpuprofile`), JSON.stringify(profile));
        session.disconnect();
      },
    };
  }
  process.stdout.write(`${READY_PREFIX}${url}\n`);
}

/** Parses a line of the child's stdout: the URL when it is the ready line. */
export function parseReadyLine(line: string): string | null {
  if (!line.startsWith(READY_PREFIX)) return null;
  const url = line.slice(READY_PREFIX.length).trim();
  return /^https?:\/\/\S+$/.test(url) ? url : null;
}

/** Runs `close` once on SIGTERM or SIGINT (after writing the CPU profile, if one runs), then exits (code 0, or 1 when closing failed). */
export function closeOnSignal(close: () => Promise<void>): void {
  let closing = false;
  const onSignal = () => {
    if (closing) return;
    closing = true;
    const stopProfiler = profiler ? profiler.stop() : Promise.resolve();
    stopProfiler.then(close).then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`close failed: ${(error as Error).stack ?? String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/**
 * The usual end of a server script: listen on 127.0.0.1 (any free port), close the app and then each of `closers`
 * in order on SIGTERM or SIGINT (closeOnSignal), and announce the URL to the harness.
 */
export async function serveUntilSignal(
  app: { listen(options: { host: string; port: number }): Promise<string>; close(): Promise<unknown> },
  ...closers: Array<() => Promise<unknown>>
): Promise<void> {
  await serveAfterSetup(app, async () => {}, ...closers);
}

/**
 * serveUntilSignal with a setup between listening and announcing: `setup` seeds what the scenario needs through the
 * server's own socket (setup-client.ts says why not `app.inject`), and the harness learns the URL once it is done.
 */
export async function serveAfterSetup(
  app: { listen(options: { host: string; port: number }): Promise<string>; close(): Promise<unknown> },
  setup: (client: SetupClient) => Promise<void>,
  ...closers: Array<() => Promise<unknown>>
): Promise<void> {
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  closeOnSignal(async () => {
    await app.close();
    for (const close of closers) await close();
  });
  await setup(setupClient(address));
  await announceListening(address);
}
