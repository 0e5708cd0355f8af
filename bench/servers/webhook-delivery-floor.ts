import { createHmac, randomBytes } from 'node:crypto';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import pg from 'pg';
import { createPostgresTestDatabase } from '@tessera/platform/testing';
import { serveUntilSignal } from '../lib/server-child.js';

/**
 * The floor of `webhook-delivery` (issue 15) on PostgreSQL: the least a server does here to write an event in a
 * transaction of its own and deliver it, signed, to a receiver on loopback before it answers. Fastify without hooks
 * or logger; per request one transaction on a pool of 10 (BEGIN with the tenant setting, the INSERT of the outbox
 * row, COMMIT: the three round trips of a unit of work), then the HMAC-signed POST over a kept-alive connection
 * straight from the request (no claim, no delivery loop, no outcome written, no metrics). Its ratio to the bare
 * route is the ceiling of any implementation that keeps a transaction per event, in the same run.
 */
const database = await createPostgresTestDatabase();
const pool = new pg.Pool({ connectionString: database.url, max: 10 });
await pool.query(`CREATE TABLE floor_outbox (tenant_id text NOT NULL, id uuid NOT NULL, event_type text NOT NULL,
  body text NOT NULL, status text NOT NULL DEFAULT 'pending', created_at timestamptz NOT NULL,
  next_attempt_at timestamptz NOT NULL, PRIMARY KEY (tenant_id, id))`);
await pool.query(`CREATE INDEX floor_outbox_due ON floor_outbox (next_attempt_at)`);

const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.statusCode = 204;
    res.end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const port = (receiver.address() as AddressInfo).port;
const agent = new Agent({ keepAlive: true, maxSockets: 50 });
const key = randomBytes(32);

const INSERT = `INSERT INTO floor_outbox (tenant_id, id, event_type, body, created_at, next_attempt_at)
  VALUES ('demo', gen_random_uuid(), 'bench.event', $1, $2, $2) RETURNING id`;

/**
 * `BENCH_FLOOR_ONE_STATEMENT=1` (webhook-delivery-floor-one-statement): the INSERT alone in autocommit, one round trip
 * and no transaction block, the least any durable outbox can write before it delivers.
 */
const oneStatement = process.env.BENCH_FLOOR_ONE_STATEMENT === '1';

async function write(body: string, now: Date): Promise<string> {
  if (oneStatement) {
    const { rows } = await pool.query<{ id: string }>({ name: 'floor.insert', text: INSERT, values: [body, now] });
    return rows[0]!.id;
  }
  const client = await pool.connect();
  try {
    await client.query(`BEGIN; SET LOCAL app.tenant_id = 'demo'`);
    const { rows } = await client.query<{ id: string }>({ name: 'floor.insert', text: INSERT, values: [body, now] });
    await client.query('COMMIT');
    return rows[0]!.id;
  } finally {
    client.release();
  }
}

function deliver(id: string, body: string): Promise<number> {
  const ts = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64');
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/hook',
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'webhook-id': id,
          'webhook-timestamp': ts,
          'webhook-signature': `v1,${signature}`,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

let sequence = 0;
const app = Fastify({ logger: false });
app.post('/bench', async () => {
  const now = new Date();
  const body = JSON.stringify({ type: 'bench.event', timestamp: now.toISOString(), data: { sequence: sequence++ } });
  const id = await write(body, now);
  await deliver(id, body);
  return { delivered: id };
});

await serveUntilSignal(
  app,
  () => pool.end(),
  () => new Promise<void>((resolve) => receiver.close(() => resolve())),
  () => database.drop(),
);
