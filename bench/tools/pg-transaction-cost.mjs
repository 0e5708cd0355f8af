/* global process, console, setTimeout, performance, URL */
// The least a transaction per event costs on this machine's PostgreSQL (docs/decisions.md, issue 15): CONC callers
// on a pool of 10, each running BEGIN with a tenant setting, one INSERT of an outbox-like row and COMMIT (MODE=tx,
// default) or the INSERT alone, autocommitted (MODE=single), for DUR seconds after one of warm-up. Prints the
// transactions per second, this process's CPU per transaction and that of its PostgreSQL backends (from /proc, the
// backends of its own scratch database only, so other users of the server are not counted).
//   node bench/tools/pg-transaction-cost.mjs            # PGURL defaults to postgres://postgres@127.0.0.1:5432/postgres
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const require = createRequire(join(process.cwd(), 'package.json'));
const pg = require('pg');
const MODE = process.env.MODE ?? 'tx';
const DUR = Number(process.env.DUR ?? 5);
const CONC = Number(process.env.CONC ?? 50);
const url = new URL(process.env.PGURL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const dbname = `tessera_txcost_${process.pid}`;

const admin = new pg.Client({ connectionString: url.href });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbname}`);
const scratch = new URL(url.href);
scratch.pathname = `/${dbname}`;
const pool = new pg.Pool({ connectionString: scratch.href, max: 10 });
await pool.query(`CREATE TABLE o (tenant_id text NOT NULL, id uuid NOT NULL, body text NOT NULL,
  created_at timestamptz NOT NULL, next_attempt_at timestamptz NOT NULL, PRIMARY KEY (tenant_id, id));
  CREATE INDEX ON o (next_attempt_at)`);
const INSERT = { name: 'insert', text: `INSERT INTO o VALUES ('demo', gen_random_uuid(), $1, $2, $2) RETURNING id` };

async function one() {
  const now = new Date();
  const body = JSON.stringify({ type: 'bench.event', timestamp: now.toISOString(), data: { sequence: 1 } });
  const client = await pool.connect();
  try {
    if (MODE === 'tx') {
      await client.query(`BEGIN; SET LOCAL app.tenant_id = 'demo'`);
      await client.query({ ...INSERT, values: [body, now] });
      await client.query('COMMIT');
    } else await client.query({ ...INSERT, values: [body, now] });
  } finally {
    client.release();
  }
}

let backends = [];
/** CPU time (µs) of this database's backends. */
function backendCpu() {
  let ticks = 0;
  for (const pid of backends)
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // a backend that ended
    }
  return ticks * 10_000;
}

let count = 0;
let stop = false;
async function run(seconds) {
  stop = false;
  const workers = Array.from({ length: CONC }, async () => {
    while (!stop) {
      await one();
      count++;
    }
  });
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  stop = true;
  await Promise.all(workers);
}

await run(1);
backends = (await admin.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [dbname])).rows.map((r) => r.pid);
count = 0;
const cpu0 = process.cpuUsage();
const pg0 = backendCpu();
const t0 = performance.now();
await run(DUR);
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
console.log(
  JSON.stringify({
    mode: MODE,
    callers: CONC,
    perSecond: Math.round(count / seconds),
    clientCpuUsPerOp: Math.round((cpu.user + cpu.system) / count),
    backendCpuUsPerOp: Math.round((backendCpu() - pg0) / count),
  }),
);
await pool.end();
await admin.query(`DROP DATABASE ${dbname}`);
await admin.end();
