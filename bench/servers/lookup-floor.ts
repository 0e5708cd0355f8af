import { createHmac, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Fastify from 'fastify';
import pg from 'pg';
import { createPostgresTestDatabase } from '@tessera/platform/testing';
import { serveUntilSignal } from '../lib/server-child.js';
import { benchDataDir } from '../lib/bench-platform.js';

/**
 * The floor of the reconciliation lookup (issue 6) on PostgreSQL: the least a lookup that reads the database and
 * records an audit row per request does, and nothing else. Fastify without hooks or logger; the bearer token
 * compared as a string (what a perfect token cache costs); concurrent lookups gathered per event-loop turn into ONE
 * statement that reads the identities and inserts their audit rows (no hash chain); the stored claims returned as
 * they are (no decryption, no projection, no rate limit, no metrics). Its ratio to the bare route is the ceiling
 * of any implementation on the machine in the same run. Writes lookup.json as the real scenario's server does.
 */
const IDENTITIES = 1000;
const database = await createPostgresTestDatabase();
const pool = new pg.Pool({ connectionString: database.url, max: 10 });
await pool.query(
  `CREATE TABLE floor_identities (identifier_hash text PRIMARY KEY, id uuid NOT NULL, claims jsonb NOT NULL)`,
);
await pool.query(`CREATE TABLE floor_audit (seq bigserial PRIMARY KEY, client_id text NOT NULL, identity_id uuid NOT NULL,
  at timestamptz NOT NULL DEFAULT now())`);
const hmacKey = randomBytes(32);
const hashes = Array.from({ length: IDENTITIES }, (_, i) =>
  createHmac('sha256', hmacKey).update(`bench-${i}`).digest('base64url'),
);
await pool.query(
  `INSERT INTO floor_identities SELECT h, gen_random_uuid(),
     jsonb_build_object('service_id', 'bench-' || n, 'email', 'bench-' || n || '@bench.example')
   FROM unnest($1::text[]) WITH ORDINALITY AS t(h, n)`,
  [hashes],
);
const token = randomBytes(420).toString('base64url');
const bodies = hashes.map((h) => JSON.stringify({ identifierHash: h, identifierType: 'SERVICE_ID' }));
await writeFile(join(benchDataDir(), 'lookup.json'), JSON.stringify({ token, bodies }));

const LOOKUP = `WITH found AS (SELECT identifier_hash, id, claims FROM floor_identities WHERE identifier_hash = ANY ($1::text[])),
  audited AS (INSERT INTO floor_audit (client_id, identity_id) SELECT 'bench-client', id FROM found)
  SELECT identifier_hash, id, claims FROM found`;

interface Found {
  id: string;
  claims: Record<string, unknown>;
}
let queue: { hash: string; done: (found: Found | null) => void }[] = [];

async function flush(): Promise<void> {
  const batch = queue;
  queue = [];
  const r = await pool.query<Found & { identifier_hash: string }>({
    name: 'floor.lookup',
    text: LOOKUP,
    values: [batch.map((p) => p.hash)],
  });
  const byHash = new Map(r.rows.map((row) => [row.identifier_hash, row]));
  for (const p of batch) p.done(byHash.get(p.hash) ?? null);
}

function lookup(hash: string): Promise<Found | null> {
  return new Promise((done) => {
    if (queue.push({ hash, done }) === 1) setImmediate(() => void flush());
  });
}

const bearer = `Bearer ${token}`;
const app = Fastify({ logger: false });
app.post('/api/external/v1/reconciliation/lookup', async (req, reply) => {
  if (req.headers.authorization !== bearer) return reply.code(401).send({ error: 'invalid_token' });
  const found = await lookup((req.body as { identifierHash: string }).identifierHash);
  if (!found) return reply.code(404).send({ error: 'identity_not_found' });
  return { internalId: found.id, claims: found.claims };
});

await serveUntilSignal(
  app,
  () => pool.end(),
  () => database.drop(),
);
