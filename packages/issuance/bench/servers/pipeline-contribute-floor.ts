import { createCipheriv, randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { createPostgresTestDatabase } from '@tessera/platform/testing';
import { serveUntilSignal } from '../../../../bench/lib/server-child.js';

/**
 * The floor of `pipeline-contribute` (issue 18) on PostgreSQL: less than any implementation of the issue can do for
 * the same request, so that its ratio to the bare route bounds what the scenario can reach in the same run.
 *
 * Fastify without hooks or logger; the same JSON body (one group of 10 attributes) parsed, each value sealed with
 * AES-256-GCM under one data key per request (the key itself wrapped once under a key-encryption key: the cheapest
 * envelope encryption, where the scenario seals a data key per value), and the 10 rows written by ONE statement in
 * autocommit on a pool of 10 (one round trip: no transaction block, no session row locked or moved, no
 * completeness, no audit event, no bearer token, no policy). Nothing here may be left out by a real contribution;
 * much of what a real contribution must do is left out here.
 */
const database = await createPostgresTestDatabase();
const pool = new pg.Pool({ connectionString: database.url, max: 10 });
await pool.query(`CREATE TABLE floor_attributes (id bigserial PRIMARY KEY, tenant_id text NOT NULL,
  session_id text NOT NULL, path text NOT NULL, sealed bytea NOT NULL, wrapped_key bytea NOT NULL,
  contributed_at timestamptz NOT NULL)`);
await pool.query(`CREATE INDEX floor_attributes_session ON floor_attributes (tenant_id, session_id)`);

const kek = randomBytes(32);

function seal(key: Buffer, plaintext: Buffer): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

const INSERT = `INSERT INTO floor_attributes (tenant_id, session_id, path, sealed, wrapped_key, contributed_at)
  SELECT 'demo', $1, p, s, $4, $5 FROM unnest($2::text[], $3::bytea[]) AS t(p, s)`;

interface Body {
  groups: { contributorId: string; phase: string; attributes: { path: string; value: unknown }[] }[];
}

const app = Fastify({ logger: false });
app.post<{ Params: { id: string }; Body: Body }>('/api/oid4vci/v1/backend/sessions/:id/attributes', async (req) => {
  const dataKey = randomBytes(32);
  const wrapped = seal(kek, dataKey);
  const paths: string[] = [];
  const sealed: Buffer[] = [];
  for (const group of req.body.groups)
    for (const attribute of group.attributes) {
      paths.push(attribute.path);
      sealed.push(seal(dataKey, Buffer.from(JSON.stringify(attribute.value))));
    }
  await pool.query({
    name: 'floor.contribute',
    text: INSERT,
    values: [req.params.id, paths, sealed, wrapped, new Date()],
  });
  return { accepted: paths.length };
});

await serveUntilSignal(
  app,
  () => pool.end(),
  () => database.drop(),
);
