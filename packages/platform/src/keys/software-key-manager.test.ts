import {
  constants,
  createPrivateKey,
  createPublicKey,
  randomBytes,
  verify as cryptoVerify,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import pg from 'pg';
import { calculateJwkThumbprint, compactVerify, createLocalJWKSet, importJWK, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, platformMigrations, type Database, type PgliteDatabase } from '../db/index.js';
import { ManualClock } from '../observability/clock.js';
import { Metrics } from '../observability/metrics.js';
import { countingDatabase, DATABASE_KINDS, openTestDatabase, type TestDatabase } from '../testing/databases.js';
import type { SigningAlgorithm } from './key-manager.js';
import { signJwt, signJwtWithKey } from './sign-jwt.js';
import {
  DEFAULT_ACTIVE_KEY_RECHECK_SECONDS,
  DEFAULT_RETAIN_SECONDS,
  SIGNING_ALGORITHMS,
  SoftwareKeyManager,
  withSymmetricKeysMigration,
  type SoftwareKeyManagerOptions,
} from './software-key-manager.js';

const START = new Date('2030-01-01T00:00:00.000Z');
const decoder = new TextDecoder();
const migrations = withSymmetricKeysMigration(platformMigrations);

/** How node:crypto verifies each JWS algorithm (RFC 7518 §3.3–3.5, RFC 8037 §3.1). */
function verifier(algorithm: SigningAlgorithm, key: KeyObject) {
  switch (algorithm) {
    case 'RS256':
      return { digest: 'sha256', key: { key } };
    case 'PS256':
      return { digest: 'sha256', key: { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 } };
    case 'ES256':
      return { digest: 'sha256', key: { key, dsaEncoding: 'ieee-p1363' as const } };
    case 'ES384':
      return { digest: 'sha384', key: { key, dsaEncoding: 'ieee-p1363' as const } };
    case 'EdDSA':
      return { digest: null, key: { key } };
  }
}

/** Counts units of work, to show what reaches the database. */
function kmsCount(metrics: Metrics, operation: string, result: string): Promise<number> {
  return metrics.kmsCalls
    .get()
    .then((m) => m.values.find((v) => v.labels.operation === operation && v.labels.result === result)?.value ?? 0);
}

describe.each(DATABASE_KINDS)('SoftwareKeyManager (%s)', (kind) => {
  let t: TestDatabase;
  const replicas: Database[] = [];
  const masterKey = randomBytes(32);

  beforeAll(async () => {
    t = await openTestDatabase(kind, migrations);
  });
  afterAll(async () => {
    for (const replica of replicas) await replica.close();
    await t?.close();
  });

  function manager(options: Partial<SoftwareKeyManagerOptions> = {}): SoftwareKeyManager {
    return new SoftwareKeyManager({
      db: t.db,
      masterKey,
      metrics: new Metrics({ collectDefault: false }),
      clock: new ManualClock(START),
      ...options,
    });
  }

  /** The database as another replica sees it: on PostgreSQL a separate connection pool. */
  async function replicaDatabase(): Promise<Database> {
    if (kind === 'pglite') return t.db;
    const db = await openDatabase({ url: t.url, migrations, migrate: false, maxPoolSize: 3 });
    replicas.push(db);
    return db;
  }

  /** SQL as the database superuser, outside the application's role: what an intruder with database access can do. */
  async function superuser(text: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
    if (kind === 'pglite')
      return (await (t.db as unknown as PgliteDatabase).pglite.query<Record<string, unknown>>(text, params)).rows;
    const client = new pg.Client({ connectionString: t.url });
    await client.connect();
    try {
      return (await client.query(text, params)).rows;
    } finally {
      await client.end();
    }
  }

  it.each(SIGNING_ALGORITHMS)(
    'creates a %s key whose signatures verify with jose and node:crypto',
    async (algorithm) => {
      const keys = manager();
      const alias = `algorithm-${algorithm}`;
      const info = await keys.create(alias, algorithm);
      expect(info).toEqual({
        alias,
        version: 1,
        kid: info.kid,
        algorithm,
        state: 'active',
        createdAt: START.toISOString(),
        publishUntil: null,
      });

      const jwk = await keys.publicJwk(alias);
      expect(jwk).toMatchObject({ kid: info.kid, alg: algorithm, use: 'sig' });
      for (const privateMember of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(jwk).not.toHaveProperty(privateMember);
      expect(await calculateJwkThumbprint(jwk, 'sha256')).toBe(info.kid);

      const jws = await signJwt(keys, alias, { sub: 'subject-1' }, { typ: 'JWT' });
      const verified = await compactVerify(jws, await importJWK(jwk, algorithm));
      expect(verified.protectedHeader).toEqual({ typ: 'JWT', alg: algorithm, kid: info.kid });
      expect(JSON.parse(decoder.decode(verified.payload))).toEqual({ sub: 'subject-1' });

      const data = randomBytes(200);
      const signature = await keys.sign(alias, data);
      expect(signature.kid).toBe(info.kid);
      expect(signature.algorithm).toBe(algorithm);
      const expectedLength = { RS256: 256, PS256: 256, ES256: 64, ES384: 96, EdDSA: 64 }[algorithm];
      expect(signature.signature).toHaveLength(expectedLength);
      const check = verifier(algorithm, createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' }));
      expect(cryptoVerify(check.digest, data, check.key, signature.signature)).toBe(true);
      expect(cryptoVerify(check.digest, Buffer.concat([data, Buffer.from([0])]), check.key, signature.signature)).toBe(
        false,
      );
    },
  );

  it('refuses a second create, an unknown algorithm and a malformed alias', async () => {
    const keys = manager();
    await keys.create('created-once', 'ES256');
    await expect(keys.create('created-once', 'ES256')).rejects.toMatchObject({ code: 'already_exists' });
    await expect(keys.create('hmac', 'HS256' as SigningAlgorithm)).rejects.toMatchObject({
      code: 'invalid_request',
      field: 'algorithm',
    });
    await expect(keys.create('has space', 'ES256')).rejects.toMatchObject({ code: 'invalid_request', field: 'alias' });
    await expect(keys.create('', 'ES256')).rejects.toMatchObject({ code: 'invalid_request', field: 'alias' });
  });

  it('answers not_found for an unknown alias and null for an unknown kid', async () => {
    const keys = manager();
    await expect(keys.sign('absent', new Uint8Array([1]))).rejects.toMatchObject({ code: 'not_found' });
    await expect(keys.publicJwk('absent')).rejects.toMatchObject({ code: 'not_found' });
    await expect(keys.publishedJwks('absent')).rejects.toMatchObject({ code: 'not_found' });
    await expect(keys.rotate('absent')).rejects.toMatchObject({ code: 'not_found' });
    expect(await keys.publicJwkByKid('no-such-kid')).toBeNull();
  });

  it('ensure() creates once, then returns the same key, also under concurrency', async () => {
    const keys = manager();
    const results = await Promise.all(Array.from({ length: 10 }, () => keys.ensure('ensured', 'ES256')));
    expect(new Set(results.map((r) => r.kid)).size).toBe(1);
    expect((await keys.ensure('ensured', 'ES256')).kid).toBe(results[0]!.kid);
    const rows = await t.db.withPlatform((sql) => sql.query(`SELECT version FROM kms_keys WHERE alias = 'ensured'`));
    expect(rows.rows).toEqual([{ version: 1 }]);
    await expect(keys.ensure('ensured', 'RS256')).rejects.toMatchObject({ code: 'conflict' });
  });

  it('ensure() racing on two replicas of one database ends with exactly one key', async () => {
    const first = manager();
    const second = manager({ db: await replicaDatabase() });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? first : second).ensure('raced', 'RS256')),
    );
    expect(new Set(results.map((r) => r.kid)).size).toBe(1);
    const rows = await t.db.withPlatform((sql) =>
      sql.query(`SELECT version, state FROM kms_keys WHERE alias = 'raced'`),
    );
    expect(rows.rows).toEqual([{ version: 1, state: 'active' }]);
    // Both replicas then sign under that one key.
    const [a, b] = await Promise.all([
      first.sign('raced', new Uint8Array([1])),
      second.sign('raced', new Uint8Array([1])),
    ]);
    expect(a.kid).toBe(results[0]!.kid);
    expect(b.kid).toBe(results[0]!.kid);
  });

  it('create() racing on two replicas lets exactly one succeed', async () => {
    const outcomes = await Promise.allSettled([
      manager().create('create-race', 'ES256'),
      manager({ db: await replicaDatabase() }).create('create-race', 'ES256'),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const rejected = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toMatchObject({ code: 'already_exists' });
  });

  it('rotation keeps the old version published until publish_until, then drops it', async () => {
    const clock = new ManualClock(START);
    const keys = manager({ clock });
    const v1 = await keys.create('rotated', 'RS256');
    const oldJws = await signJwt(keys, 'rotated', { n: 1 });

    const v2 = await keys.rotate('rotated', { retainSeconds: 600 });
    expect(v2).toMatchObject({ alias: 'rotated', version: 2, state: 'active', algorithm: 'RS256', publishUntil: null });
    expect(v2.kid).not.toBe(v1.kid);
    // A local rotation takes effect at once.
    expect((await keys.publicJwk('rotated')).kid).toBe(v2.kid);
    expect((await keys.sign('rotated', new Uint8Array([1]))).kid).toBe(v2.kid);

    const published = await keys.publishedJwks('rotated');
    expect(published.map((j) => j.kid)).toEqual([v2.kid, v1.kid]);
    const verified = await compactVerify(oldJws, createLocalJWKSet({ keys: published }));
    expect(verified.protectedHeader.kid).toBe(v1.kid);
    const newJws = await signJwt(keys, 'rotated', { n: 2 });
    expect((await compactVerify(newJws, createLocalJWKSet({ keys: published }))).protectedHeader.kid).toBe(v2.kid);

    const listed = (await keys.list()).filter((k) => k.alias === 'rotated');
    expect(listed).toEqual([
      { ...v1, state: 'retired', publishUntil: new Date(START.getTime() + 600_000).toISOString() },
      { ...v2, publishUntil: null },
    ]);

    clock.advance(601);
    const later = await keys.publishedJwks('rotated');
    expect(later.map((j) => j.kid)).toEqual([v2.kid]);
    await expect(compactVerify(oldJws, createLocalJWKSet({ keys: later }))).rejects.toMatchObject({
      code: 'ERR_JWKS_NO_MATCHING_KEY',
    });
    // Old material can still be looked up by kid.
    expect(await keys.publicJwkByKid(v1.kid)).toMatchObject({ kid: v1.kid, alg: 'RS256', use: 'sig' });
  });

  it('retains a retired version for a day and an hour by default', async () => {
    const keys = manager();
    await keys.create('default-retention', 'EdDSA');
    const v2 = await keys.rotate('default-retention');
    const v3 = await keys.rotate('default-retention');
    const listed = (await keys.list()).filter((k) => k.alias === 'default-retention');
    const expectedUntil = new Date(START.getTime() + DEFAULT_RETAIN_SECONDS * 1000).toISOString();
    expect(listed.map((k) => [k.version, k.state, k.publishUntil])).toEqual([
      [1, 'retired', expectedUntil],
      [2, 'retired', expectedUntil],
      [3, 'active', null],
    ]);
    expect((await keys.publishedJwks('default-retention')).map((j) => j.kid)[0]).toBe(v3.kid);
    expect((await keys.publishedJwks('default-retention')).map((j) => j.kid)).toContain(v2.kid);
  });

  it('two replicas rotating at once both succeed, leaving one active version', async () => {
    const first = manager();
    await first.create('rotation-race', 'ES256');
    const second = manager({ db: await replicaDatabase() });
    const rotated = await Promise.all([first.rotate('rotation-race'), second.rotate('rotation-race')]);
    expect(rotated.map((r) => r.version).sort()).toEqual([2, 3]);
    const rows = await t.db.withPlatform((sql) =>
      sql.query(`SELECT version, state FROM kms_keys WHERE alias = 'rotation-race' ORDER BY version`),
    );
    expect(rows.rows).toEqual([
      { version: 1, state: 'retired' },
      { version: 2, state: 'retired' },
      { version: 3, state: 'active' },
    ]);
  });

  it('another replica follows a rotation after the recheck interval', async () => {
    const clock = new ManualClock(START);
    const first = manager({ clock });
    const second = manager({ clock, db: await replicaDatabase(), activeKeyRecheckSeconds: 5 });
    const v1 = await first.create('followed', 'ES384');
    expect((await second.sign('followed', new Uint8Array([1]))).kid).toBe(v1.kid);

    const v2 = await first.rotate('followed');
    clock.advance(4);
    // Inside the interval the replica still signs with v1, which stays published for tokens in flight.
    const stale = await second.sign('followed', new Uint8Array([2]));
    expect(stale.kid).toBe(v1.kid);
    expect((await first.publishedJwks('followed')).map((j) => j.kid)).toContain(v1.kid);

    clock.advance(1);
    expect((await second.sign('followed', new Uint8Array([3]))).kid).toBe(v2.kid);
    expect((await second.publicJwk('followed')).kid).toBe(v2.kid);
  });

  it('signs from memory once the key is loaded, loading it once for concurrent callers', async () => {
    const clock = new ManualClock(START);
    await manager().create('hot-path', 'RS256');
    const counted = countingDatabase(t.db);
    const keys = manager({ db: counted.db, clock });

    await Promise.all(Array.from({ length: 20 }, () => keys.sign('hot-path', new Uint8Array([1]))));
    expect(counted.units()).toBe(1);
    await Promise.all(Array.from({ length: 50 }, (_, i) => signJwt(keys, 'hot-path', { i })));
    expect(counted.units()).toBe(1);

    // After the recheck interval one read confirms the version; an unchanged key is not decrypted again.
    clock.advance(5);
    await Promise.all(Array.from({ length: 10 }, () => keys.sign('hot-path', new Uint8Array([2]))));
    expect(counted.units()).toBe(2);
  });

  it('holds the active version ready: header and signature from one version, across a rotation', async () => {
    const clock = new ManualClock(START);
    const metrics = new Metrics({ collectDefault: false });
    const keys = manager({ clock, metrics });
    const v1 = await keys.create('ready', 'ES256');
    // Not loaded yet: the ready path answers nothing and does not go to the database.
    expect(keys.readyActiveSigningKey('ready')).toBeUndefined();
    const loaded = await keys.activeSigningKey('ready');
    expect(loaded).toMatchObject({ kid: v1.kid, algorithm: 'ES256' });
    expect(loaded.publicJwk).toEqual(await keys.publicJwk('ready'));
    expect(Object.isFrozen(loaded.publicJwk)).toBe(true);
    // The same object on every read: a signing request allocates nothing to find its key.
    expect(keys.readyActiveSigningKey('ready')).toBe(loaded);

    // A rotation here: the handle read before it still signs with v1, whose key stays published.
    const v2 = await keys.rotate('ready');
    expect(keys.readyActiveSigningKey('ready')).toBeUndefined();
    const data = randomBytes(64);
    const old = await loaded.sign(data);
    expect(old.kid).toBe(v1.kid);
    const check = verifier('ES256', createPublicKey({ key: loaded.publicJwk as JsonWebKey, format: 'jwk' }));
    expect(cryptoVerify(check.digest, data, check.key, old.signature)).toBe(true);
    expect((await keys.publishedJwks('ready')).map((j) => j.kid)).toEqual([v2.kid, v1.kid]);
    expect((await keys.activeSigningKey('ready')).kid).toBe(v2.kid);

    // Once the recheck interval has passed, the ready path defers to activeSigningKey (a rotation elsewhere).
    clock.advance(DEFAULT_ACTIVE_KEY_RECHECK_SECONDS);
    expect(keys.readyActiveSigningKey('ready')).toBeUndefined();
    await expect(keys.activeSigningKey('no-such-alias')).rejects.toMatchObject({ code: 'not_found' });
    // Signatures through a handle are counted as the provider's sign calls; the ready reads are not calls.
    expect(await kmsCount(metrics, 'sign', 'success')).toBe(1);
    expect(await kmsCount(metrics, 'active_signing_key', 'success')).toBe(2);
    expect(await kmsCount(metrics, 'active_signing_key', 'failure')).toBe(1);
  });

  it('signJwt reads the ready version: no key call but the signature once the key is loaded', async () => {
    const metrics = new Metrics({ collectDefault: false });
    const keys = manager({ metrics });
    const info = await keys.create('jwt-ready', 'RS256');
    const first = await signJwtWithKey(keys, 'jwt-ready', { n: 1 }, { typ: 'JWT' });
    expect(first.publicJwk.kid).toBe(info.kid);
    await Promise.all(Array.from({ length: 5 }, (_, n) => signJwt(keys, 'jwt-ready', { n })));
    const verified = await compactVerify(first.jwt, await importJWK(first.publicJwk as JWK, 'RS256'));
    expect(verified.protectedHeader).toEqual({ typ: 'JWT', alg: 'RS256', kid: info.kid });
    expect(await kmsCount(metrics, 'active_signing_key', 'success')).toBe(1);
    expect(await kmsCount(metrics, 'sign', 'success')).toBe(6);
    expect(await kmsCount(metrics, 'public_jwk', 'success')).toBe(0);
  });

  it('stores private keys only sealed under the master key', async () => {
    const keys = manager();
    await keys.create('sealed', 'RS256');
    const [row] = await superuser(`SELECT encrypted_private, public_jwk FROM kms_keys WHERE alias = 'sealed'`);
    const sealed = String(row!.encrypted_private);
    expect(sealed).not.toContain('PRIVATE KEY');
    expect(sealed.startsWith('v1.')).toBe(true);
    const parts = sealed.split('.');
    expect(parts).toHaveLength(4);
    expect(Buffer.from(parts[1]!, 'base64url')).toHaveLength(12);
    expect(Buffer.from(parts[3]!, 'base64url')).toHaveLength(16);
    // The ciphertext is no PKCS#8 structure; only the public members are in the clear.
    expect(() =>
      createPrivateKey({ key: Buffer.from(parts[2]!, 'base64url'), format: 'der', type: 'pkcs8' }),
    ).toThrow();
    expect(Object.keys(row!.public_jwk as JWK).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);

    const wrongMaster = manager({ masterKey: randomBytes(32) });
    await expect(wrongMaster.sign('sealed', new Uint8Array([1]))).rejects.toMatchObject({ code: 'server_error' });
    await expect(wrongMaster.health()).rejects.toMatchObject({ code: 'server_error' });
    await expect(keys.health()).resolves.toBeUndefined();
  });

  it('refuses to sign when sealed keys are swapped between rows', async () => {
    const keys = manager();
    const a = await keys.create('swap-a', 'ES256');
    const b = await keys.create('swap-b', 'ES256');
    const rows = await superuser(`SELECT alias, encrypted_private FROM kms_keys WHERE alias IN ('swap-a', 'swap-b')`);
    const sealedOf = (alias: string) => rows.find((r) => r.alias === alias)!.encrypted_private;
    await superuser(`UPDATE kms_keys SET encrypted_private = $2 WHERE alias = $1`, ['swap-a', sealedOf('swap-b')]);
    await superuser(`UPDATE kms_keys SET encrypted_private = $2 WHERE alias = $1`, ['swap-b', sealedOf('swap-a')]);

    const fresh = manager();
    await expect(fresh.sign('swap-a', new Uint8Array([1]))).rejects.toMatchObject({ code: 'server_error' });
    await expect(fresh.sign('swap-b', new Uint8Array([1]))).rejects.toMatchObject({ code: 'server_error' });
    // Public material is untouched and still answers.
    expect((await fresh.publishedJwks('swap-a'))[0]!.kid).toBe(a.kid);
    expect((await fresh.publicJwkByKid(b.kid))?.kid).toBe(b.kid);
  });

  it('refuses a master key of the wrong length', () => {
    expect(() => manager({ masterKey: randomBytes(16) })).toThrow(/32 bytes/);
  });

  it('counts calls by operation and result', async () => {
    const metrics = new Metrics({ collectDefault: false });
    const keys = manager({ metrics });
    await keys.create('counted', 'EdDSA');
    await keys.sign('counted', new Uint8Array([1]));
    await keys.sign('counted', new Uint8Array([2]));
    await expect(keys.sign('not-counted', new Uint8Array([1]))).rejects.toMatchObject({ code: 'not_found' });
    await keys.health();
    expect(await kmsCount(metrics, 'create', 'success')).toBe(1);
    expect(await kmsCount(metrics, 'sign', 'success')).toBe(2);
    expect(await kmsCount(metrics, 'sign', 'failure')).toBe(1);
    expect(await kmsCount(metrics, 'health', 'success')).toBe(1);
  });

  it('keeps signing and symmetric keys in separate namespaces under one master key', async () => {
    const keys = manager();
    const signing = await keys.create('shared-name', 'ES256');
    const symmetric = await keys.ensureSymmetric('shared-name', 'HS256');
    expect(symmetric.kid).not.toBe(signing.kid);
    expect((await keys.sign('shared-name', new Uint8Array([1]))).kid).toBe(signing.kid);
    expect((await keys.hmac('shared-name', new Uint8Array([1]))).kid).toBe(symmetric.kid);
    // Listing, key sets and readiness concern signing keys only; a symmetric kid is no public key.
    expect((await keys.list()).filter((k) => k.alias === 'shared-name').map((k) => k.kid)).toEqual([signing.kid]);
    expect((await keys.publishedJwks('shared-name')).map((j) => j.kid)).toEqual([signing.kid]);
    expect(await keys.publicJwkByKid(symmetric.kid)).toBeNull();
    await expect(keys.health()).resolves.toBeUndefined();
    await expect(keys.rotate('symmetric-only')).rejects.toMatchObject({ code: 'not_found' });
  });
});
