/**
 * The database's CPU time per search statement of party-person-search, apart from any HTTP server: the statement of
 * GET /persons?q=<family name> (storage/party-store.ts listStatement), prepared as the store prepares it, on a few
 * connections set as the runtime role of the demo tenant, back to back for the given seconds; the backends' CPU
 * time is read from /proc (Linux, the server on this machine). The bench's `cpu us/op` counts only the Node process,
 * not PostgreSQL's share of the search. Needs the seeded database (seed-persons.ts). Run it with
 *
 *   npx tsx packages/parties/bench/statement-cpu.ts [seconds] [connections]
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { pageRequest } from '../src/domain/pagination.js';
import { searchPlan } from '../src/domain/search-text.js';
import { listStatement } from '../src/storage/party-store.js';
import { benchDatabaseUrl, BENCH_TENANT } from './seed-persons.js';
import { SEARCH_NAMES } from './search-queries.js';

const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 4);
const WARMUP_MS = 1000;
const page = pageRequest({ limit: 20 }, { defaultPageSize: 20, maxPageSize: 200 });
const statementOf = (name: string) => listStatement({ type: 'PERSON', search: searchPlan(name)! }, page);

/** user + system CPU time of a process in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const clients = await Promise.all(
  Array.from({ length: connections }, async () => {
    const client = new pg.Client({ connectionString: benchDatabaseUrl() });
    await client.connect();
    await client.query(`SET ROLE tessera_app; SET app.tenant_id = '${BENCH_TENANT}'; SET app.platform = 'off'`);
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    return { client, pid };
  }),
);

let counted = 0;
let startCpu: number[] | null = null;
const measureFrom = Date.now() + WARMUP_MS;
const stopAt = measureFrom + seconds * 1000;
await Promise.all(
  clients.map(async ({ client }, k) => {
    for (let i = k * 250; Date.now() < stopAt; i++) {
      const { text, params, name } = statementOf(SEARCH_NAMES[i % SEARCH_NAMES.length]!);
      await client.query({ name, text, values: params });
      if (Date.now() < measureFrom) continue;
      startCpu ??= clients.map((c) => cpuMs(c.pid));
      counted++;
    }
  }),
);
const used = clients.reduce((sum, c, k) => sum + cpuMs(c.pid) - startCpu![k]!, 0);
// The plan the connections ran last (generic after five executions: `$n` where the custom plan shows values).
const { text, params, name } = statementOf(SEARCH_NAMES[0]!);
const values = params.map((p) => `'${String(p)}'`).join(', ');
await clients[0]!.client.query({ name, text, values: params });
const plan = await clients[0]!.client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE "${name}"(${values})`);
process.stdout.write(`${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}\n`);
process.stdout.write(
  `${counted} searches in ${seconds} s on ${connections} connections: ${Math.round(counted / seconds)}/s, ` +
    `database CPU ${Math.round((used * 1000) / counted)} us per search\n`,
);
await Promise.all(clients.map(({ client }) => client.end()));
