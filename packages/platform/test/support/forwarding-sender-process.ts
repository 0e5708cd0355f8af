import { createPlatform } from '../../src/bootstrap.js';
import { loadConfig, PlatformConfigSchema } from '../../src/config/index.js';
import { platformMigrations } from '../../src/db/index.js';
import { EventForwardingService } from '../../src/event-forwarding/event-forwarding-service.js';
import { OutboundService } from '../../src/outbound/outbound-service.js';

/**
 * A forwarding replica as its own process, for the test that kills one mid-delivery (SIGKILL): a platform over the
 * database of DATABASE_URL running the forwarding loop and the outbox's delivery loop until it is killed. Prints
 * `ready` once started.
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
const outbound = new OutboundService(platform, {
  allowPrivateOrigins: [env('RECEIVER_ORIGIN')],
  timeoutMs: Number(env('TIMEOUT_MS')),
  leaseMarginMs: 200,
  pollIntervalMs: 20,
});
const forwarding = new EventForwardingService(platform, outbound, {
  transmitterUrl: env('TRANSMITTER_URL'),
  pollIntervalMs: 20,
});
outbound.start();
forwarding.start();
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void Promise.all([forwarding.stop(), outbound.stop()])
    .then(() => platform.close())
    .then(() => process.exit(0));
});
