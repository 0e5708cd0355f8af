import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hash as argon2Hash } from '@node-rs/argon2';
import Value from 'typebox/value';
import { createRoleApp, platformMigrations, type Sql } from '@tessera/platform';
import { identityMigrations, PostgresIdentityStore } from '@tessera/identity';
import {
  createTokenService,
  prepareTokenService,
  registerTokenServiceRoutes,
  tokenServiceMigrations,
  TokenServiceConfigSchema,
  type TokenServiceConfig,
} from '@tessera/token-service';
import { announceListening, closeOnSignal } from '../lib/server-child.js';
import {
  BENCH_CLIENT,
  BENCH_REDIRECT,
  BENCH_SECRET,
  BENCH_VERIFIER,
  type TokenBenchCredentials,
} from '../lib/token-bench.js';
import { benchDataDir, startBenchPlatform } from '../lib/bench-platform.js';
import { replicaDatabase, replicaRole } from '../lib/replica.js';

/**
 * The token service on PostgreSQL (a fresh database on the machine's server) with the whole platform: audit of
 * every issuance (group commit), metrics, logs at info. The bench client's secret is stored as an argon2id hash
 * ({argon2}); a verified secret is remembered for 300 s (tokenService.clientSecretCacheSeconds), so the hash cost
 * is paid once per window, as in production. Credentials to redeem (authorization codes, or refresh tokens) are
 * minted before the measurement and handed to the load generator through a file. As one of several replicas
 * (`--replicas`), replica 0 creates the database and mints; the others join its database and serve the same grants.
 */
const dataDir = benchDataDir();
const mode = process.env.BENCH_TOKEN_MODE === 'refresh' ? 'refresh' : 'exchange';
const count = Number(process.env.BENCH_TOKEN_CREDENTIALS ?? 60_000);

const replica = replicaRole();
const database = await replicaDatabase();
const { platform } = await startBenchPlatform({
  profile: 'test',
  database: { url: database.url, maxPoolSize: 10 },
  migrations: [...platformMigrations, ...identityMigrations, ...tokenServiceMigrations],
  overrides: { tenancy: { seedDemoTenant: true } },
});
const tokenConfig = Value.Default(TokenServiceConfigSchema, {
  clients: {
    [BENCH_CLIENT]: {
      'client-secret': `{argon2}${await argon2Hash(BENCH_SECRET)}`,
      'redirect-uris': [BENCH_REDIRECT],
      'grant-types': ['authorization_code', 'refresh_token'],
      scopes: ['openid', 'profile', 'email', 'offline_access'],
    },
  },
}) as TokenServiceConfig;
const ctx = createTokenService(platform, tokenConfig, {
  identities: new PostgresIdentityStore({ keys: platform.keys, clock: platform.clock, serviceClaim: 'service_id' }),
  wallet: null,
  upstream: null,
});
const app = await createRoleApp(platform, { role: 'token-internal', title: 'bench', family: 'oauth' });
await registerTokenServiceRoutes(app, ctx);
const address = await app.listen({ host: '127.0.0.1', port: 0 });
// Behind the load balancer every replica is the same issuer: the balancer's address.
tokenConfig.issuer = replica.publicUrl ?? address;
await prepareTokenService(ctx);

const sha = (s: string) => createHash('sha256').update(s).digest('base64url');
const claims = JSON.stringify({ email: 'alice@demo.example', given_name: 'Alice', family_name: 'Doe' });
const SCOPE = 'openid profile email offline_access';

/** Grants with their codes (or refresh tokens), as the authorization endpoint and a first exchange leave them. */
async function mint(sql: Sql, n: number): Promise<string[]> {
  const values: string[] = [];
  const grantIds: string[] = [];
  const hashes: string[] = [];
  for (let i = 0; i < n; i++) {
    const v = randomBytes(32).toString('base64url');
    values.push(v);
    hashes.push(sha(v));
    grantIds.push(randomUUID());
  }
  const far = new Date(Date.now() + 24 * 3600 * 1000);
  await sql.query(
    `INSERT INTO oauth_grants (id, client_id, subject, scope, acr, amr, auth_time, claims, created_at, expires_at)
     SELECT g, $2, 'bench-user-' || left(g::text, 8), $3, 'urn:bench:acr', '{federation}', now(), $4::jsonb, now(), $5
     FROM unnest($1::uuid[]) AS g`,
    [grantIds, BENCH_CLIENT, SCOPE, claims, far],
  );
  if (mode === 'exchange') {
    await sql.query(
      `INSERT INTO oauth_authorization_codes (code_hash, grant_id, client_id, redirect_uri, nonce, code_challenge, code_challenge_method, created_at, expires_at)
       SELECT h, g, $3, $4, 'n-0', $5, 'S256', now(), $6 FROM unnest($1::text[], $2::uuid[]) AS t(h, g)`,
      [hashes, grantIds, BENCH_CLIENT, BENCH_REDIRECT, sha(BENCH_VERIFIER), far],
    );
  } else {
    await sql.query(
      `INSERT INTO oauth_refresh_tokens (token_hash, grant_id, client_id, scope, created_at, expires_at)
       SELECT h, g, $3, $4, now(), $5 FROM unnest($1::text[], $2::uuid[]) AS t(h, g)`,
      [hashes, grantIds, BENCH_CLIENT, SCOPE, far],
    );
  }
  return values;
}

if (replica.index === 0) {
  const values: string[] = [];
  for (let done = 0; done < count; done += 5000) {
    values.push(...(await platform.db.withTenant('demo', (sql) => mint(sql, Math.min(5000, count - done)))));
  }
  const credentials: TokenBenchCredentials = mode === 'exchange' ? { codes: values } : { refreshTokens: values };
  writeFileSync(join(dataDir, 'credentials.json'), JSON.stringify(credentials));
}

closeOnSignal(async () => {
  await app.close();
  await platform.close();
  await database.drop();
});
await announceListening(address);
