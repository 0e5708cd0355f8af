import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { createRoleApp, platformMigrations, withSymmetricKeysMigration } from '@tessera/platform';
import { createPostgresTestDatabase, startTestIssuer } from '@tessera/platform/testing';
import { Value } from 'typebox/value';
import { serveAfterSetup } from '../../../../bench/lib/server-child.js';
import type { SetupClient } from '../../../../bench/lib/setup-client.js';
import { benchDataDir, startBenchPlatform } from '../../../../bench/lib/bench-platform.js';
import {
  IssuanceConfigSchema,
  issuanceMigrations,
  registerIssuanceRoutes,
  type IssuanceConfig,
} from '../../src/index.js';

/**
 * The issuance role app for the pipeline-contribute scenario, on PostgreSQL (a fresh database on the machine's
 * server): the whole platform (bearer JWT, tenant, rate limit, command bus with policy and audit, metrics, logs at
 * info) and SESSIONS live sessions of the demo tenant, sealed with the tenant envelope encryption, on a pipeline
 * that requires two claims. The administrator's token and the session ids go to BENCH_DATA_DIR/contribute.json.
 */
const dataDir = benchDataDir();
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 200);

const database = await createPostgresTestDatabase();
const issuer = await startTestIssuer();
const { platform } = await startBenchPlatform({
  profile: 'test',
  database: { url: database.url, maxPoolSize: 10 },
  migrations: [...withSymmetricKeysMigration(platformMigrations), ...issuanceMigrations],
  overrides: {
    tenancy: { seedDemoTenant: true },
    auth: { issuers: [{ issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: issuer.audience }] },
  },
});
const config = Value.Default(IssuanceConfigSchema, {}) as IssuanceConfig;
const app = await createRoleApp(platform, { role: 'issuance', title: 'bench', family: 'design' });
await registerIssuanceRoutes(app, platform, { config });
await app.ready();

const admin = await issuer.sign({ sub: 'bench-admin', roles: ['tenant-admin'] }, { expiresInSeconds: 86_400 });
const headers = { authorization: `Bearer ${admin}`, 'content-type': 'application/json' };
/** The sessions, seeded through the server's own socket (bench/lib/setup-client.ts), then the statistics. */
async function seed(request: SetupClient): Promise<void> {
  const sessions: string[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const res = await request({
      method: 'POST',
      url: '/api/oid4vci/v1/backend/sessions',
      headers,
      payload: {
        ttl_seconds: 86_400,
        pipeline_configuration: {
          pipelineId: 'bench',
          invocationBindings: [{ connectorId: 'registry', phase: 'OID4VCI_START', required: false }],
          claimsBindings: [
            {
              credentialConfigurationId: 'pid',
              claims: [{ attributePath: 'person.given_name' }, { attributePath: 'person.family_name' }],
            },
          ],
        },
      },
    });
    if (res.statusCode !== 200) throw new Error(`seeding failed: ${res.statusCode} ${res.body}`);
    sessions.push(res.json().correlation_id as string);
  }
  // Statistics, as a database in service has them (autovacuum): without them the planner of a just-seeded table may
  // find a session by its expiry index and filter every live session instead of using the primary key.
  const owner = new pg.Client({ connectionString: database.url });
  await owner.connect();
  await owner.query('ANALYZE issuance_sessions, issuance_session_attributes');
  await owner.end();
  await writeFile(join(dataDir, 'contribute.json'), JSON.stringify({ token: admin, sessions }));
}

await serveAfterSetup(
  app,
  seed,
  () => platform.close(),
  () => issuer.close(),
  () => database.drop(),
);
