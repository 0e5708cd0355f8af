import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Fastify from 'fastify';
import pg from 'pg';
import { serveUntilSignal } from '../../../../bench/lib/server-child.js';
import { benchDataDir } from '../../../../bench/lib/bench-platform.js';
import { pageRequest } from '../../src/domain/pagination.js';
import { searchPlan } from '../../src/domain/search-text.js';
import { listStatement } from '../../src/storage/party-store.js';
import { benchDatabaseUrl, BENCH_TENANT, seedPersons } from '../seed-persons.js';
import { SEARCH_NAMES, searchPath, type SearchHandover } from '../search-queries.js';

/**
 * The baseline of party-person-search: the same statement as GET /persons?q= (storage/party-store.ts
 * listStatement) through the `pg` driver, as the same runtime role under the same row-level security (each pooled
 * connection is set to the tenant once), behind a bare Fastify route: no authentication, policy, audit, logs,
 * metrics or validation; the rows sent as the driver returns them. Same database and pool size as the API server.
 */
const persons = Number(process.env.BENCH_PARTIES_PERSONS ?? 1_000_000);
const url = benchDatabaseUrl();
await seedPersons(url, persons);
const pool = new pg.Pool({ connectionString: url, max: 10 });
pool.on('connect', (client) => {
  void client.query(`SET ROLE tessera_app; SET app.tenant_id = '${BENCH_TENANT}'; SET app.platform = 'off'`);
});
const page = pageRequest({ limit: 20 }, { defaultPageSize: 20, maxPageSize: 200 });

const app = Fastify({ logger: false });
app.get('/api/party/v1/persons', async (request) => {
  const q = (request.query as { q?: string }).q ?? '';
  const { text, params, name } = listStatement({ type: 'PERSON', search: searchPlan(q) ?? undefined }, page);
  // Prepared per connection under the same name, as the store has it prepared.
  const result = await pool.query({ name, text, values: params });
  return { data: result.rows.slice(0, page.limit) };
});
const handover: SearchHandover = { token: null, paths: SEARCH_NAMES.map(searchPath) };
await writeFile(join(benchDataDir(), 'search.json'), JSON.stringify(handover));
await serveUntilSignal(app, () => pool.end());
