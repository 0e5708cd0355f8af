import { createHmac, randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, platformMigrations, type Database, type PgliteDatabase } from '../db/index.js';
import { ManualClock } from '../observability/clock.js';
import { Metrics } from '../observability/metrics.js';
import {
  countingDatabase,
  DATABASE_KINDS,
  openTestDatabase,
  seedTenants,
  type TestDatabase,
} from '../testing/databases.js';
import {
  SoftwareKeyManager,
  withSymmetricKeysMigration,
  type SoftwareKeyManagerOptions,
} from './software-key-manager.js';

const START = new Date('2030-01-01T00:00:00.000Z');
const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text);
const text = (data: Uint8Array) => new TextDecoder().decode(data);
const migrations = withSymmetricKeysMigration(platformMigrations);

/** Counts units of work, to show what reaches the database. */
describe.each(DATABASE_KINDS)('SoftwareKeyManager symmetric keys (%s)', (kind) => {
  let t: TestDatabase;
  const replicas: Database[] = [];
  const masterKey = randomBytes(32);

  beforeAll(async () => {
    t = await openTestDatabase(kind, migrations);
    await seedTenants(t.db, 'tenant-a');
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

  async function replicaDatabase(): Promise<Database> {
    if (kind === 'pglite') return t.db;
    const db = await openDatabase({ url: t.url, migrations, migrate: false, maxPoolSize: 3 });
    replicas.push(db);
    return db;
  }

  /** SQL as the database superuser, outside the application's role: what an intruder with database access can do. */
  async function superuser(sqlText: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
    if (kind === 'pglite')
      return (await (t.db as unknown as PgliteDatabase).pglite.query<Record<string, unknown>>(sqlText, params)).rows;
    const client = new pg.Client({ connectionString: t.url });
    await client.connect();
    try {
      return (await client.query(sqlText, params)).rows;
    } finally {
      await client.end();
    }
  }

  it('computes HMAC-SHA256 under the active version, equal to a client holding the exported key', async () => {
    const keys = manager();
    const info = await keys.ensureSymmetric('lookup', 'HS256', { exportable: true });
    expect(info).toEqual({
      alias: 'lookup',
      version: 1,
      kid: info.kid,
      algorithm: 'HS256',
      state: 'active',
      exportable: true,
      createdAt: START.toISOString(),
      activatedAt: START.toISOString(),
      retiredAt: null,
    });
    const exported = await keys.exportSymmetricKey('lookup');
    expect(exported.key).toHaveLength(32);
    const mac = await keys.hmac('lookup', bytes('did:example:holder'));
    expect(mac.kid).toBe(info.kid);
    expect(mac.version).toBe(1);
    const expected = createHmac('sha256', exported.key).update('did:example:holder', 'utf8').digest();
    expect(Buffer.from(mac.mac).equals(expected)).toBe(true);
    expect(
      Buffer.from((await keys.hmacWithVersion('lookup', 1, bytes('did:example:holder'))).mac).equals(expected),
    ).toBe(true);
  });

  it('ensureSymmetric creates once, also under concurrency, and refuses another algorithm or exportability', async () => {
    const keys = manager();
    const results = await Promise.all(Array.from({ length: 10 }, () => keys.ensureSymmetric('ensured-kek', 'A256GCM')));
    expect(new Set(results.map((r) => r.kid)).size).toBe(1);
    const raced = await Promise.all([
      manager().ensureSymmetric('raced-kek', 'A256GCM'),
      manager({ db: await replicaDatabase() }).ensureSymmetric('raced-kek', 'A256GCM'),
    ]);
    expect(raced[0].kid).toBe(raced[1].kid);
    expect((await keys.listSymmetric('raced-kek')).map((k) => k.version)).toEqual([1]);
    await expect(keys.ensureSymmetric('ensured-kek', 'HS256')).rejects.toMatchObject({ code: 'conflict' });
    await expect(keys.ensureSymmetric('lookup-private', 'HS256')).resolves.toMatchObject({ exportable: false });
    await expect(keys.ensureSymmetric('lookup-private', 'HS256', { exportable: true })).rejects.toMatchObject({
      code: 'conflict',
    });
    await expect(keys.ensureSymmetric('kek-export', 'A256GCM', { exportable: true })).rejects.toMatchObject({
      code: 'invalid_request',
      field: 'exportable',
    });
    await expect(keys.ensureSymmetric('bad', 'ES256' as 'HS256')).rejects.toMatchObject({ field: 'algorithm' });
    await expect(keys.ensureSymmetric('has space', 'HS256')).rejects.toMatchObject({ field: 'alias' });
  });

  it('keeps symmetric and signing keys apart: each operation refuses the other kind of key', async () => {
    const keys = manager();
    await keys.ensureSymmetric('kind-kek', 'A256GCM');
    await keys.ensureSymmetric('kind-mac', 'HS256');
    await expect(keys.hmac('kind-kek', bytes('x'))).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(keys.encrypt('kind-mac', bytes('x'), bytes('aad'))).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(keys.sign('kind-mac', bytes('x'))).rejects.toMatchObject({ code: 'not_found' });
    await expect(keys.hmac('absent', bytes('x'))).rejects.toMatchObject({ code: 'not_found' });
    await expect(keys.hmacWithVersion('kind-mac', 7, bytes('x'))).rejects.toMatchObject({ code: 'not_found' });
    await expect(keys.hmacWithVersion('kind-mac', 0, bytes('x'))).rejects.toMatchObject({ field: 'version' });
    await expect(keys.exportSymmetricKey('kind-mac')).rejects.toMatchObject({ code: 'policy_denied' });
    await expect(keys.exportSymmetricKey('kind-kek')).rejects.toMatchObject({ code: 'policy_denied' });
    // The signing keys' listing is untouched by symmetric keys.
    expect((await keys.list()).some((k) => k.alias.startsWith('kind-'))).toBe(false);
  });

  it('encrypts with a fresh data key per record, bound to its additional data', async () => {
    const keys = manager();
    const kek = await keys.ensureSymmetric('records', 'A256GCM');
    const aad = bytes('identity:tenant-a:record-1');
    const first = await keys.encrypt('records', bytes('{"email":"ada@example.org"}'), aad);
    const second = await keys.encrypt('records', bytes('{"email":"ada@example.org"}'), aad);
    expect(first.kid).toBe(kek.kid);
    const parts = first.ciphertext.split('.');
    expect(parts).toHaveLength(6);
    expect(parts.slice(0, 2)).toEqual(['e1', kek.kid]);
    // Different data keys and IVs: equal plaintexts give unrelated envelopes.
    expect(second.ciphertext.split('.')[2]).not.toBe(parts[2]);
    expect(second.ciphertext.split('.')[4]).not.toBe(parts[4]);
    expect(first.ciphertext).not.toContain(Buffer.from('ada@example.org').toString('base64url'));

    const opened = await keys.decrypt(first.ciphertext, aad);
    expect(opened).toMatchObject({ alias: 'records', version: 1, kid: kek.kid });
    expect(text(opened.plaintext)).toBe('{"email":"ada@example.org"}');

    await expect(keys.decrypt(first.ciphertext, bytes('identity:tenant-a:record-2'))).rejects.toMatchObject({
      code: 'invalid_request',
      field: 'ciphertext',
    });
    const flipped = [...parts];
    flipped[4] = Buffer.from(Buffer.from(parts[4]!, 'base64url').map((b, i) => (i === 0 ? b ^ 1 : b))).toString(
      'base64url',
    );
    await expect(keys.decrypt(flipped.join('.'), aad)).rejects.toMatchObject({ code: 'invalid_request' });
    // A wrapped data key moved into another envelope does not open it.
    const swapped = [...parts];
    swapped[2] = second.ciphertext.split('.')[2]!;
    await expect(keys.decrypt(swapped.join('.'), aad)).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(keys.decrypt('e1.nokid', aad)).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(keys.decrypt(parts.join('.').replace(kek.kid, 'unknownkid'), aad)).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });

  it('rotates through a pending version: explicit versions first, then activation, old material still opens', async () => {
    const keys = manager();
    await keys.ensureSymmetric('rotating-mac', 'HS256');
    const kek1 = await keys.ensureSymmetric('rotating-kek', 'A256GCM');
    const aad = bytes('aad');
    const old = await keys.encrypt('rotating-kek', bytes('old'), aad);
    const mac1 = await keys.hmac('rotating-mac', bytes('value'));

    const pendingMac = await keys.addSymmetricVersion('rotating-mac');
    const pendingKek = await keys.addSymmetricVersion('rotating-kek');
    expect(pendingKek).toMatchObject({ version: 2, state: 'pending', algorithm: 'A256GCM', activatedAt: null });
    // The default stays on the active version until the new one is activated.
    expect((await keys.hmac('rotating-mac', bytes('value'))).version).toBe(1);
    expect((await keys.encrypt('rotating-kek', bytes('x'), aad)).kid).toBe(kek1.kid);
    const mac2 = await keys.hmacWithVersion('rotating-mac', 2, bytes('value'));
    expect(mac2.kid).toBe(pendingMac.kid);
    expect(Buffer.from(mac2.mac).equals(Buffer.from(mac1.mac))).toBe(false);
    const early = await keys.encrypt('rotating-kek', bytes('early'), aad, { version: 2 });
    expect(early.kid).toBe(pendingKek.kid);

    const activated = await keys.activateSymmetricVersion('rotating-kek', 2);
    expect(activated).toMatchObject({ version: 2, state: 'active', activatedAt: START.toISOString() });
    expect(await keys.activateSymmetricVersion('rotating-kek', 2)).toMatchObject({ state: 'active' });
    expect((await keys.encrypt('rotating-kek', bytes('new'), aad)).kid).toBe(pendingKek.kid);
    expect(text((await keys.decrypt(old.ciphertext, aad)).plaintext)).toBe('old');
    expect(text((await keys.decrypt(early.ciphertext, aad)).plaintext)).toBe('early');
    expect((await keys.listSymmetric('rotating-kek')).map((k) => [k.version, k.state])).toEqual([
      [1, 'retired'],
      [2, 'active'],
    ]);

    await expect(keys.retireSymmetricVersion('rotating-kek', 2)).rejects.toMatchObject({ code: 'conflict' });
    await keys.addSymmetricVersion('rotating-mac');
    expect(await keys.retireSymmetricVersion('rotating-mac', 3)).toMatchObject({ state: 'retired' });
    expect(await keys.retireSymmetricVersion('rotating-mac', 3)).toMatchObject({ state: 'retired' });
    const rotated = await keys.rotateSymmetric('rotating-mac');
    expect(rotated).toMatchObject({ version: 4, state: 'active' });
    expect((await keys.hmac('rotating-mac', bytes('value'))).version).toBe(4);
    // A retired version still computes its MACs (re-indexing reads old and new).
    expect(
      Buffer.from((await keys.hmacWithVersion('rotating-mac', 1, bytes('value'))).mac).equals(Buffer.from(mac1.mac)),
    ).toBe(true);
    await expect(keys.activateSymmetricVersion('rotating-mac', 9)).rejects.toMatchObject({ code: 'not_found' });
    await expect(keys.addSymmetricVersion('never-created')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('re-wraps a data key under another version without touching the data', async () => {
    const keys = manager();
    const v1 = await keys.ensureSymmetric('rewrapped', 'A256GCM');
    const aad = bytes('aad');
    const sealed = await keys.encrypt('rewrapped', bytes('payload'), aad);
    const v2 = await keys.rotateSymmetric('rewrapped');
    const rewrapped = await keys.rewrap(sealed.ciphertext);
    expect(rewrapped.kid).toBe(v2.kid);
    expect(rewrapped.version).toBe(2);
    const [before, after] = [sealed.ciphertext.split('.'), rewrapped.ciphertext.split('.')];
    expect(after.slice(3)).toEqual(before.slice(3));
    expect(after[2]).not.toBe(before[2]);
    expect(text((await keys.decrypt(rewrapped.ciphertext, aad)).plaintext)).toBe('payload');
    const back = await keys.rewrap(rewrapped.ciphertext, { version: 1 });
    expect(back.kid).toBe(v1.kid);
    expect(text((await keys.decrypt(back.ciphertext, aad)).plaintext)).toBe('payload');
  });

  it('stores secrets only sealed under the master key, bound to their row', async () => {
    const keys = manager();
    await keys.ensureSymmetric('sealed-mac', 'HS256', { exportable: true });
    await keys.ensureSymmetric('sealed-other', 'HS256', { exportable: true });
    const secret = Buffer.from((await keys.exportSymmetricKey('sealed-mac')).key);
    const rows = await superuser(`SELECT * FROM kms_symmetric_keys WHERE alias IN ('sealed-mac', 'sealed-other')`);
    const stored = JSON.stringify(rows);
    for (const encoding of ['base64', 'base64url', 'hex'] as const)
      expect(stored).not.toContain(secret.toString(encoding));
    const sealed = String(rows.find((r) => r.alias === 'sealed-mac')!.encrypted_secret);
    expect(sealed.split('.')).toHaveLength(4);
    expect(sealed.startsWith('v1.')).toBe(true);

    await expect(manager({ masterKey: randomBytes(32) }).hmac('sealed-mac', bytes('x'))).rejects.toMatchObject({
      code: 'server_error',
    });
    // Moved onto another row, or with its exportability flipped, a sealed secret no longer opens.
    const other = rows.find((r) => r.alias === 'sealed-other')!.encrypted_secret;
    await superuser(`UPDATE kms_symmetric_keys SET encrypted_secret = $1 WHERE alias = 'sealed-mac'`, [other]);
    await expect(manager().hmac('sealed-mac', bytes('x'))).rejects.toMatchObject({ code: 'server_error' });
    await superuser(`UPDATE kms_symmetric_keys SET exportable = false WHERE alias = 'sealed-other'`);
    await expect(manager().hmac('sealed-other', bytes('x'))).rejects.toMatchObject({ code: 'server_error' });
  });

  it('serves MACs and envelopes from memory once a version is loaded', async () => {
    const clock = new ManualClock(START);
    await manager().ensureSymmetric('hot-mac', 'HS256');
    await manager().ensureSymmetric('hot-kek', 'A256GCM');
    const counted = countingDatabase(t.db);
    const keys = manager({ db: counted.db, clock });
    const aad = bytes('aad');
    await keys.hmac('hot-mac', bytes('warm'));
    const sealed = await keys.encrypt('hot-kek', bytes('warm'), aad);
    const warm = counted.units();
    expect(warm).toBe(2);

    for (let i = 0; i < 50; i++) {
      await keys.hmac('hot-mac', bytes(`value-${i}`));
      await keys.hmacWithVersion('hot-mac', 1, bytes(`value-${i}`));
      await keys.encrypt('hot-kek', bytes(`value-${i}`), aad, { version: 1 });
      await keys.decrypt(sealed.ciphertext, aad);
    }
    expect(counted.units()).toBe(warm);
    // After the recheck interval, one read confirms the active version; explicit versions need none.
    clock.advance(5);
    await keys.hmac('hot-mac', bytes('again'));
    await keys.hmacWithVersion('hot-mac', 1, bytes('again'));
    expect(counted.units()).toBe(warm + 1);
  });

  it('another replica follows an activation after the recheck interval', async () => {
    const clock = new ManualClock(START);
    const first = manager({ clock });
    const second = manager({ clock, db: await replicaDatabase() });
    await first.ensureSymmetric('followed-mac', 'HS256');
    expect((await second.hmac('followed-mac', bytes('x'))).version).toBe(1);
    await first.rotateSymmetric('followed-mac');
    clock.advance(4);
    expect((await second.hmac('followed-mac', bytes('x'))).version).toBe(1);
    clock.advance(1);
    expect((await second.hmac('followed-mac', bytes('x'))).version).toBe(2);
  });

  it("works inside a tenant's unit of work through its connection, and forgets keys whose creation rolled back", async () => {
    const keys = manager();
    const aad = bytes('aad');
    // On the embedded database a second unit of work inside this one would never start: the key rows are read
    // and written through the caller's transaction instead.
    const rolledBack = await t.db
      .withTenant('tenant-a', async (sql) => {
        await keys.ensureSymmetric('unit-kek', 'A256GCM', { sql });
        await keys.ensureSymmetric('unit-mac', 'HS256', { sql });
        const mac = await keys.hmac('unit-mac', bytes('value'), { sql });
        const sealed = await keys.encrypt('unit-kek', bytes('inside'), aad, { sql });
        expect(text((await keys.decrypt(sealed.ciphertext, aad, { sql })).plaintext)).toBe('inside');
        throw Object.assign(new Error('roll back'), { mac });
      })
      .catch((error: { mac: { mac: Uint8Array } }) => error.mac);
    expect(await keys.listSymmetric('unit-mac')).toEqual([]);

    // The same alias created again is a new key: nothing of the rolled-back one was remembered.
    const committed = await t.db.withTenant('tenant-a', async (sql) => {
      await keys.ensureSymmetric('unit-mac', 'HS256', { sql });
      return keys.hmac('unit-mac', bytes('value'), { sql });
    });
    expect(Buffer.from(committed.mac).equals(Buffer.from(rolledBack.mac))).toBe(false);
    expect((await keys.hmac('unit-mac', bytes('value'))).kid).toBe(committed.kid);
    expect(Buffer.from((await keys.hmac('unit-mac', bytes('value'))).mac).equals(Buffer.from(committed.mac))).toBe(
      true,
    );
  });

  it('counts symmetric calls by operation and result', async () => {
    const metrics = new Metrics({ collectDefault: false });
    const keys = manager({ metrics });
    await keys.ensureSymmetric('counted-mac', 'HS256');
    await keys.hmac('counted-mac', bytes('a'));
    await expect(keys.hmac('not-counted', bytes('a'))).rejects.toMatchObject({ code: 'not_found' });
    const values = (await metrics.kmsCalls.get()).values;
    const count = (operation: string, result: string) =>
      values.find((v) => v.labels.operation === operation && v.labels.result === result)?.value ?? 0;
    expect(count('ensure_symmetric', 'success')).toBe(1);
    expect(count('hmac', 'success')).toBe(1);
    expect(count('hmac', 'failure')).toBe(1);
  });
});
