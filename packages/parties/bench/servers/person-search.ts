import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRoleApp } from '@tessera/platform';
import { startTestIssuer } from '@tessera/platform/testing';
import { PostgresIdentityStore } from '@tessera/identity';
import { serveUntilSignal } from '../../../../bench/lib/server-child.js';
import { benchDataDir, startBenchPlatform } from '../../../../bench/lib/bench-platform.js';
import { registerPartiesRoutes } from '../../src/index.js';
import { benchDatabaseUrl, BENCH_TENANT, seedMigrations, seedPersons } from '../seed-persons.js';
import { SEARCH_NAMES, searchPath, type SearchHandover } from '../search-queries.js';

/**
 * The parties role app for party-person-search, on PostgreSQL with BENCH_PARTIES_PERSONS (default 1,000,000)
 * seeded persons (bench/seed-persons.ts: the database is kept between runs): the whole platform (bearer JWT of an
 * issuer in process, tenant resolution, policy, the audit event of every read, group-committed; metrics; logs at
 * info), a pool of 10 connections. A reader's token and the search paths go to BENCH_DATA_DIR/search.json.
 */
const persons = Number(process.env.BENCH_PARTIES_PERSONS ?? 1_000_000);
const url = benchDatabaseUrl();
await seedPersons(url, persons);
const issuer = await startTestIssuer();
const { platform } = await startBenchPlatform({
  profile: 'test',
  database: { url, maxPoolSize: 10 },
  migrations: seedMigrations(),
  overrides: {
    tenancy: { seedDemoTenant: true },
    auth: {
      issuers: [{ issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: issuer.audience, tenants: [BENCH_TENANT] }],
    },
  },
});
const app = await createRoleApp(platform, { role: 'parties', title: 'bench', family: 'party' });
await registerPartiesRoutes(app, platform, {
  config: { defaultPageSize: 20, maxPageSize: 200 },
  identities: new PostgresIdentityStore({ keys: platform.keys, clock: platform.clock, serviceClaim: 'service_id' }),
});
const token = await issuer.sign(
  { sub: 'bench-reader', tenant_id: BENCH_TENANT, roles: [] },
  { expiresInSeconds: 86_400 },
);
const handover: SearchHandover = { token, paths: SEARCH_NAMES.map(searchPath) };
await writeFile(join(benchDataDir(), 'search.json'), JSON.stringify(handover));
await serveUntilSignal(
  app,
  () => platform.close(),
  () => issuer.close(),
);
