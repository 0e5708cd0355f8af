import { join } from 'node:path';
import { createRoleApp, platformMigrations } from '@tessera/platform';
import { serveUntilSignal } from '../lib/server-child.js';
import { benchDataDir, startBenchPlatform } from '../lib/bench-platform.js';

/**
 * The bare route's handler inside a role app with the whole platform middleware: correlation id and trace
 * context, tenant resolution (the default tenant), rate limiting (on, with a limit no run reaches), one log line
 * per request at info (to BENCH_LOG_FILE, /dev/null by default), metrics. Tracing is off: the configuration is
 * built from an empty environment and the harness strips OTEL_* from the child's.
 */
const { platform } = await startBenchPlatform({
  profile: 'development',
  database: { dataDir: join(benchDataDir(), 'pglite') },
  migrations: platformMigrations,
});
const app = await createRoleApp(platform, { role: 'bench', title: 'bench', family: 'platform' });
app.get('/bench', async () => ({ ok: true }));

await serveUntilSignal(app, () => platform.close());
