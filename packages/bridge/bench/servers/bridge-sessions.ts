import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pino from 'pino';
import {
  createPlatform,
  createRoleApp,
  loadConfig,
  PlatformConfigSchema,
  platformMigrations,
  withSymmetricKeysMigration,
} from '@tessera/platform';
import { startTestIssuer } from '@tessera/platform/testing';
import { identityMigrations, PostgresIdentityStore } from '@tessera/identity';
import { announceListening, closeOnSignal, logDestinationPath } from '../../../../bench/lib/server-child.js';
import { BridgeConfigSchema, bridgeMigrations, registerBridgeRoutes } from '../../src/index.js';

/**
 * The bridge role app for the session-creation scenario: embedded database in BENCH_DATA_DIR, a token issuer in
 * process (its token, scope bridge:sessions, written to BENCH_DATA_DIR/token.txt for the load generator).
 */
const dataDir = process.env.BENCH_DATA_DIR;
if (!dataDir) throw new Error('BENCH_DATA_DIR is not set (the harness gives each server a temporary directory)');

const issuer = await startTestIssuer();
const config = loadConfig(PlatformConfigSchema, {
  env: {},
  overrides: {
    profile: 'development',
    database: { dataDir: join(dataDir, 'pglite') },
    keys: { masterKey: randomBytes(32).toString('base64') },
    rateLimit: { enabled: true, requestsPerWindow: 1_000_000_000 },
    logging: { level: 'info' },
    auth: { issuers: [{ issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: issuer.audience }] },
  },
});
const platform = await createPlatform(config, {
  migrations: withSymmetricKeysMigration([...platformMigrations, ...identityMigrations, ...bridgeMigrations]),
  logDestination: pino.destination(logDestinationPath()),
  serviceName: 'tessera-bench',
});
const app = await createRoleApp(platform, { role: 'bridge', title: 'bench', family: 'oauth' });
const bridge = loadConfig(BridgeConfigSchema, { env: {}, overrides: {} });
const identities = new PostgresIdentityStore({
  keys: platform.keys,
  clock: platform.clock,
  serviceClaim: config.deployment.serviceClaim,
});
await registerBridgeRoutes(app, platform, { config: bridge, identities });
const token = await issuer.sign(
  { sub: 'portal-backend', tenant_id: 'demo', scope: 'bridge:sessions' },
  { expiresInSeconds: 86_400 },
);
await writeFile(join(dataDir, 'token.txt'), token);

const address = await app.listen({ host: '127.0.0.1', port: 0 });
closeOnSignal(async () => {
  await app.close();
  await platform.close();
  await issuer.close();
});
await announceListening(address);
