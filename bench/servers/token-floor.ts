import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';
import pg from 'pg';
import { createPostgresTestDatabase } from '@tessera/platform/testing';
import { serveUntilSignal } from '../lib/server-child.js';
import { benchDataDir } from '../lib/bench-platform.js';
import { BENCH_VERIFIER, type TokenBenchCredentials } from '../lib/token-bench.js';

/**
 * The floor of a token endpoint on PostgreSQL: the least any implementation that keeps its tokens in the database
 * (issue 3 item 8) does per request, and nothing else. Fastify without hooks or logger; the form parsed with
 * URLSearchParams; concurrent redemptions gathered per event-loop turn into ONE statement (the cheapest way to the
 * database there is); the signatures (one for a refresh, access and ID token for an exchange) through async
 * node:crypto. No client authentication, no audit, no logs, no metrics, no request validation beyond the row's
 * own checks. Its per-core ratio against rs256-sign is the ceiling a real token service can reach on the machine.
 */
const dataDir = benchDataDir();
const mode = process.env.BENCH_TOKEN_MODE === 'refresh' ? 'refresh' : 'exchange';
const count = Number(process.env.BENCH_TOKEN_CREDENTIALS ?? 60_000);
const sha = (s: string) => createHash('sha256').update(s).digest('base64url');

const database = await createPostgresTestDatabase();
const pool = new pg.Pool({ connectionString: database.url, max: 10 });
// One table stands for codes and refresh tokens alike: presented once, each redemption stores a successor.
await pool.query(`CREATE TABLE floor_tokens (
  token_hash text PRIMARY KEY, subject text NOT NULL, challenge text, used boolean NOT NULL DEFAULT false)`);
const values = Array.from({ length: count }, () => randomBytes(32).toString('base64url'));
await pool.query(
  `INSERT INTO floor_tokens (token_hash, subject, challenge)
   SELECT h, 'user-' || n, $2 FROM unnest($1::text[]) WITH ORDINALITY AS t(h, n)`,
  [values.map(sha), sha(BENCH_VERIFIER)],
);
const credentials: TokenBenchCredentials = mode === 'exchange' ? { codes: values } : { refreshTokens: values };
writeFileSync(join(dataDir, 'credentials.json'), JSON.stringify(credentials));

const REDEEM = `WITH input AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) AS i(token_hash, challenge, next_hash)),
  used AS (UPDATE floor_tokens t SET used = true FROM input i
           WHERE t.token_hash = i.token_hash AND NOT t.used AND (i.challenge IS NULL OR t.challenge = i.challenge)
           RETURNING t.subject, i.next_hash)
  INSERT INTO floor_tokens (token_hash, subject) SELECT next_hash, subject FROM used RETURNING token_hash, subject`;

interface Pending {
  tokenHash: string;
  challenge: string | null;
  nextHash: string;
  done: (subject: string | null) => void;
}
let queue: Pending[] = [];

async function flush(): Promise<void> {
  const batch = queue;
  queue = [];
  const r = await pool.query<{ token_hash: string; subject: string }>({
    name: 'floor.redeem',
    text: REDEEM,
    values: [batch.map((p) => p.tokenHash), batch.map((p) => p.challenge), batch.map((p) => p.nextHash)],
  });
  const subjects = new Map(r.rows.map((row) => [row.token_hash, row.subject]));
  for (const p of batch) p.done(subjects.get(p.nextHash) ?? null);
}

function redeem(tokenHash: string, challenge: string | null, nextHash: string): Promise<string | null> {
  return new Promise((done) => {
    if (queue.push({ tokenHash, challenge, nextHash, done }) === 1) setImmediate(() => void flush());
  });
}

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function signJwt(key: KeyObject, payload: Record<string, unknown>, typ: string): Promise<string> {
  const input = `${b64({ alg: 'RS256', typ, kid: 'floor-1' })}.${b64(payload)}`;
  return new Promise((resolve, reject) =>
    sign('sha256', Buffer.from(input), key, (error, signature) =>
      error ? reject(error) : resolve(`${input}.${signature.toString('base64url')}`),
    ),
  );
}

const app = Fastify({ logger: false });
app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
  done(null, new URLSearchParams(body as string)),
);
app.post('/token', async (req, reply) => {
  const form = req.body as URLSearchParams;
  const presented = (mode === 'exchange' ? form.get('code') : form.get('refresh_token')) ?? '';
  const verifier = form.get('code_verifier');
  const next = randomBytes(32).toString('base64url');
  const subject = await redeem(sha(presented), mode === 'exchange' ? sha(verifier ?? '') : null, sha(next));
  if (subject === null) return reply.code(400).send({ error: 'invalid_grant' });
  const iat = Math.floor(Date.now() / 1000);
  const claims = { iss: 'http://127.0.0.1', sub: subject, aud: 'bench-rp', iat, exp: iat + 3600 };
  const accessToken = await signJwt(
    privateKey,
    {
      ...claims,
      client_id: 'bench-rp',
      scope: 'openid profile email offline_access',
      jti: randomBytes(16).toString('base64url'),
    },
    'at+jwt',
  );
  const idToken = mode === 'exchange' ? await signJwt(privateKey, { ...claims, nonce: 'n-0' }, 'JWT') : undefined;
  return { access_token: accessToken, token_type: 'Bearer', expires_in: 3600, refresh_token: next, id_token: idToken };
});

await serveUntilSignal(
  app,
  () => pool.end(),
  () => database.drop(),
);
