import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRoleApp, loadConfig, platformMigrations, withSymmetricKeysMigration } from '@tessera/platform';
import { createPostgresTestDatabase, startTestIssuer } from '@tessera/platform/testing';
import { exportSharedHmacKey, identityMigrations, PostgresIdentityStore } from '@tessera/identity';
import { serveUntilSignal } from '../../../../bench/lib/server-child.js';
import { BridgeConfigSchema, bridgeMigrations, computeIdentifierHash, registerBridgeRoutes } from '../../src/index.js';
import { benchDataDir, startBenchPlatform } from '../../../../bench/lib/bench-platform.js';

/**
 * The bridge role app for the reconciliation lookup scenario, on PostgreSQL (a fresh database on the machine's
 * server): the whole platform (audit of every lookup as external_api_lookup, group-committed; metrics; logs at
 * info), a token issuer in process whose JWKS the platform trusts, IDENTITIES identities with sealed claims, and
 * one client projection. The client's token and the lookup bodies (SERVICE_ID hashes under the tenant's shared key)
 * go to BENCH_DATA_DIR/lookup.json for the load generator.
 */
const dataDir = benchDataDir();
const IDENTITIES = Number(process.env.BENCH_RECONCILIATION_IDENTITIES ?? 1000);
const AUDIENCE = 'tessera-reconciliation';

const database = await createPostgresTestDatabase();
const issuer = await startTestIssuer(AUDIENCE);
const { config, platform } = await startBenchPlatform({
  profile: 'test',
  database: { url: database.url, maxPoolSize: 10 },
  migrations: withSymmetricKeysMigration([...platformMigrations, ...identityMigrations, ...bridgeMigrations]),
  overrides: {
    tenancy: { seedDemoTenant: true },
    auth: { issuers: [{ issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: AUDIENCE }] },
  },
});
const bridge = loadConfig(BridgeConfigSchema, {
  env: {},
  overrides: {
    reconciliation: {
      clients: {
        'bench-client': {
          scopes: ['reconciliation:read'],
          'projected-claims': ['service_id', 'email'],
          'auxiliary-categories': ['crm'],
        },
      },
    },
  },
});
const identities = new PostgresIdentityStore({
  keys: platform.keys,
  clock: platform.clock,
  serviceClaim: config.deployment.serviceClaim,
});
const app = await createRoleApp(platform, { role: 'bridge', title: 'bench', family: 'oauth' });
await registerBridgeRoutes(app, platform, { config: bridge, identities });

const serviceIds: string[] = [];
for (let done = 0; done < IDENTITIES; done += 250) {
  await platform.db.withTenant('demo', async (sql) => {
    for (let i = done; i < Math.min(IDENTITIES, done + 250); i++) {
      const serviceId = `bench-${i}`;
      await identities.createIdentity(
        { tenantId: 'demo', sql },
        {
          claims: {
            service_id: serviceId,
            email: `${serviceId}@bench.example`,
            given_name: 'Bench',
            family_name: 'Person',
          },
          assurance: { acr: 'urn:bench:loa', amr: ['federation'] },
        },
      );
      serviceIds.push(serviceId);
    }
  });
}
const { key } = await exportSharedHmacKey({ db: platform.db, keys: platform.keys, clock: platform.clock }, 'demo');
const token = await issuer.sign(
  { sub: 'bench-client', client_id: 'bench-client', tenant_id: 'demo', scope: 'reconciliation:read' },
  { expiresInSeconds: 86_400 },
);
const bodies = serviceIds.map((id) =>
  JSON.stringify({ identifierHash: computeIdentifierHash(key, id), identifierType: 'SERVICE_ID' }),
);
await writeFile(join(dataDir, 'lookup.json'), JSON.stringify({ token, bodies }));

await serveUntilSignal(
  app,
  () => platform.close(),
  () => issuer.close(),
  () => database.drop(),
);
