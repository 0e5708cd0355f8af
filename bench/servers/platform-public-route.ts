import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  createLogDestination,
  createPlatform,
  createRoleApp,
  loadConfig,
  PlatformConfigSchema,
  platformMigrations,
} from '@tessera/platform';
import { announceListening, closeOnSignal, logDestinationPath } from '../lib/server-child.js';

/**
 * The bare route's handler inside a role app with the whole platform middleware: correlation id and trace
 * context, tenant resolution (the default tenant), rate limiting (on, with a limit no run reaches), one log line
 * per request at info (to BENCH_LOG_FILE, /dev/null by default), metrics. Tracing is off: the configuration is
 * built from an empty environment and the harness strips OTEL_* from the child's.
 */
const dataDir = process.env.BENCH_DATA_DIR;
if (!dataDir) throw new Error('BENCH_DATA_DIR is not set (the harness gives each server a temporary directory)');

const config = loadConfig(PlatformConfigSchema, {
  env: {},
  overrides: {
    profile: 'development',
    database: { dataDir: join(dataDir, 'pglite') },
    keys: { masterKey: randomBytes(32).toString('base64') },
    rateLimit: { enabled: true, requestsPerWindow: 1_000_000_000 },
    logging: { level: 'info' },
  },
});
const platform = await createPlatform(config, {
  migrations: platformMigrations,
  logDestination: createLogDestination(logDestinationPath()),
  serviceName: 'tessera-bench',
});
const app = await createRoleApp(platform, { role: 'bench', title: 'bench', family: 'platform' });
app.get('/bench', async () => ({ ok: true }));

const address = await app.listen({ host: '127.0.0.1', port: 0 });
closeOnSignal(async () => {
  await app.close();
  await platform.close();
});
await announceListening(address);
