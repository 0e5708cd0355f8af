import {
  createHash,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { createPostgresTestDatabase } from '@tessera/platform/testing';
import { serveUntilSignal } from '../../../../bench/lib/server-child.js';

/**
 * The floor of `oid4vci-credential` (issue 19) on PostgreSQL: what no implementation of the same two requests can
 * leave out, and nothing else, so that its per-core ratio bounds the scenario's in the same run.
 *
 * Fastify without hooks or logger. POST /oid4vci/nonce: a random nonce written by one autocommit INSERT (a nonce
 * must be single use on every replica). POST /oid4vci/credential: the DPoP proof and the key proof each verified
 * (ES256, node:crypto, the public key taken from the JWS header, `ath` and the proof's nonce compared); one autocommit
 * statement that spends the nonce and allocates a status index; an SD-JWT of 5 disclosures signed (ES256). Left out,
 * though the issue needs them: the access token's signature and lifetime, the DPoP `jti` replay check, the pipeline
 * session and its sealed claims, the issuance record, the audit event, the metadata and policy checks.
 */
const database = await createPostgresTestDatabase();
const pool = new pg.Pool({ connectionString: database.url, max: 10 });
await pool.query(`CREATE TABLE floor_nonces (nonce text PRIMARY KEY, expires_at timestamptz NOT NULL)`);
await pool.query(`CREATE TABLE floor_status (list_id text PRIMARY KEY, next_index int NOT NULL)`);
await pool.query(`INSERT INTO floor_status VALUES ('list-1', 0)`);
const issuerKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;

const SPEND_AND_ALLOCATE = `WITH spent AS (DELETE FROM floor_nonces WHERE nonce = $1 AND expires_at > now() RETURNING 1)
  UPDATE floor_status SET next_index = next_index + 1 WHERE list_id = 'list-1' AND EXISTS (SELECT 1 FROM spent)
  RETURNING next_index - 1 AS idx`;

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const keys = new Map<string, KeyObject>();

/** The payload and header key of a compact ES256 JWS whose signature verifies under that key (`jwk`), or null. */
function verified(jws: string): { payload: Record<string, unknown>; jwk: Record<string, string> } | null {
  const [header, payload, signature] = jws.split('.');
  if (!header || !payload || !signature) return null;
  const { jwk } = JSON.parse(Buffer.from(header, 'base64url').toString()) as { jwk: Record<string, string> };
  const id = `${jwk.x}.${jwk.y}`;
  let key = keys.get(id);
  if (!key) keys.set(id, (key = createPublicKey({ key: jwk, format: 'jwk' })));
  const ok = verify(
    'sha256',
    Buffer.from(`${header}.${payload}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  return ok
    ? { payload: JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>, jwk }
    : null;
}

const app = Fastify({ logger: false });
app.post('/oid4vci/nonce', async () => {
  const nonce = randomBytes(16).toString('base64url');
  await pool.query({
    name: 'floor.nonce',
    text: `INSERT INTO floor_nonces VALUES ($1, now() + interval '5 minutes')`,
    values: [nonce],
  });
  return { c_nonce: nonce };
});

app.post<{ Body: { proofs: { jwt: string[] } } }>('/oid4vci/credential', async (req, reply) => {
  const token = (req.headers.authorization ?? '').replace(/^DPoP /, '');
  const dpop = verified(String(req.headers.dpop))?.payload;
  if (!dpop || dpop.ath !== createHash('sha256').update(token).digest('base64url')) return reply.code(401).send();
  const proof = verified(req.body.proofs.jwt[0]!);
  if (!proof) return reply.code(400).send();
  const { rows } = await pool.query<{ idx: number }>({
    name: 'floor.spend',
    text: SPEND_AND_ALLOCATE,
    values: [proof.payload.nonce],
  });
  if (rows.length !== 1) return reply.code(400).send();
  const disclosures = ['given_name', 'family_name', 'birthdate', 'nationality', 'email'].map((name) =>
    b64([randomBytes(16).toString('base64url'), name, `value of ${name}`]),
  );
  const header = b64({ typ: 'dc+sd-jwt', alg: 'ES256' });
  const payload = b64({
    iss: 'https://issuer.example',
    vct: 'urn:example:pid',
    iat: Math.floor(Date.now() / 1000),
    cnf: { jwk: proof.jwk },
    status: { status_list: { idx: rows[0]!.idx, uri: 'https://issuer.example/status/list-1' } },
    _sd_alg: 'sha-256',
    _sd: disclosures.map((d) => createHash('sha256').update(d).digest('base64url')),
  });
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), { key: issuerKey, dsaEncoding: 'ieee-p1363' });
  return {
    credentials: [{ credential: `${header}.${payload}.${signature.toString('base64url')}~${disclosures.join('~')}~` }],
  };
});

await serveUntilSignal(
  app,
  () => pool.end(),
  () => database.drop(),
);
