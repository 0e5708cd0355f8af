import { createPlatform } from '../../src/bootstrap.js';
import { loadConfig, PlatformConfigSchema } from '../../src/config/index.js';
import { platformMigrations } from '../../src/db/index.js';
import { OutboundService } from '../../src/outbound/outbound-service.js';

/**
 * A sending replica as its own process, for the test that kills one mid-delivery (SIGKILL): a platform over the
 * database of DATABASE_URL whose delivery loop runs until the process is killed. Prints `ready` once started.
 */
const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const config = loadConfig(PlatformConfigSchema, {
  env: {},
  overrides: {
    profile: 'test',
    database: { url: env('DATABASE_URL') },
    keys: { masterKey: env('MASTER_KEY') },
    logging: { level: 'warn' },
  },
});
const platform = await createPlatform(config, { migrations: platformMigrations });
const service = new OutboundService(platform, {
  allowPrivateOrigins: [env('RECEIVER_ORIGIN')],
  timeoutMs: Number(env('TIMEOUT_MS')),
  leaseMarginMs: 200,
  pollIntervalMs: 20,
});
service.start();
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void service
    .stop()
    .then(() => platform.close())
    .then(() => process.exit(0));
});
