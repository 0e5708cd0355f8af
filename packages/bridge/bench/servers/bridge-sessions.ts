import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRoleApp, loadConfig, platformMigrations, withSymmetricKeysMigration } from '@tessera/platform';
import { createPostgresTestDatabase, startTestIssuer } from '@tessera/platform/testing';
import { identityMigrations, PostgresIdentityStore } from '@tessera/identity';
import { serveUntilSignal } from '../../../../bench/lib/server-child.js';
import { BridgeConfigSchema, bridgeMigrations, registerBridgeRoutes } from '../../src/index.js';
import { benchDataDir, startBenchPlatform } from '../../../../bench/lib/bench-platform.js';

/**
 * The bridge role app for the session-creation scenario: BENCH_BRIDGE_DATABASE `postgres` (a fresh database on
 * the machine's server) or `pglite` (embedded, in BENCH_DATA_DIR), a token issuer in process (its token, scope
 * bridge:sessions, written to BENCH_DATA_DIR/token.txt for the load generator).
 */
const dataDir = benchDataDir();
const onPostgres = (process.env.BENCH_BRIDGE_DATABASE ?? 'pglite') === 'postgres';
const postgres = onPostgres ? await createPostgresTestDatabase() : null;

const issuer = await startTestIssuer();
const { config, platform } = await startBenchPlatform({
  profile: 'development',
  database: postgres ? { url: postgres.url, maxPoolSize: 10 } : { dataDir: join(dataDir, 'pglite') },
  migrations: withSymmetricKeysMigration([...platformMigrations, ...identityMigrations, ...bridgeMigrations]),
  overrides: { auth: { issuers: [{ issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: issuer.audience }] } },
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

await serveUntilSignal(
  app,
  () => platform.close(),
  () => issuer.close(),
  async () => postgres?.drop(),
);
