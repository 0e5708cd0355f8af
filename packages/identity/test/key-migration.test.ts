import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { exportSharedHmacKey } from '../src/commands/export-shared-hmac-key.js';
import { identityDekAlias, identityHmacAlias } from '../src/domain/key-aliases.js';
import { KEY_MIGRATION_EVENTS } from '../src/key-migration/migration-audit.js';
import { assurance, clientHash, openHarness, RecordingAudit, SERVICE_CLAIM, type Harness } from './support.js';
import { expectAllReadable, ISSUER, newRunner, seed, storedKeyUse, type Seeded } from './seed.js';

const byId = (a: Seeded, b: Seeded) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

describe.each(DATABASE_KINDS)('key migration (%s)', (kind) => {
  let h: Harness;

  beforeAll(async () => {
    h = await openHarness(kind, 'tenant-a', 'tenant-b', 'tenant-c', 'tenant-d', 'tenant-e', 'tenant-f');
  });
  afterAll(async () => {
    await h?.close();
  });

  const shared = (tenantId: string, which: 'current' | 'next' = 'current') =>
    exportSharedHmacKey({ db: h.t.db, keys: h.keys, clock: h.clock }, tenantId, which);
  const kidsOf = async (alias: string) => (await h.keys.listSymmetric(alias)).map((k) => [k.version, k.state, k.kid]);

  it('stopped mid-way and resumed by a new runner, re-encrypts and re-indexes every record exactly once', async () => {
    const seeded = await seed(h, 'tenant-a', 23);
    const other = await seed(h, 'tenant-b', 3);
    const otherBefore = await storedKeyUse(h, 'tenant-b');
    const oldKey = await shared('tenant-a');
    const audit = new RecordingAudit();
    const stop = new AbortController();
    const first = newRunner(h, {
      audit,
      afterBatch: (progress) => {
        if (progress.batchesCommitted === 2) stop.abort();
      },
    });

    const paused = await first.start('tenant-a', { signal: stop.signal, principalId: 'operator-1' });
    expect(paused).toMatchObject({
      status: 'IN_PROGRESS',
      from: { dek: 1, hmac: 1 },
      to: { dek: 2, hmac: 2 },
      batchSize: 5,
      batchesCommitted: 2,
      recordsFailed: 0,
      recordsSkipped: 0,
      finishedAt: null,
    });
    expect(paused.recordsProcessed).toBe(10);
    const sorted = [...seeded].sort(byId);
    const cursor = sorted[9]!.id;
    // The purged binding belongs to seeded[0]: counted by the batch that visited it.
    expect(paused.recordsPurged).toBe(seeded[0]!.id <= cursor ? 1 : 0);

    // While the migration is open: reads and lookups answer, a hash under the old or the new key matches, writes
    // land under both key versions, and a second migration cannot start.
    await expectAllReadable(h, 'tenant-a', seeded);
    const newKey = await shared('tenant-a', 'next');
    expect(newKey.version).toBe(2);
    // A migrated record answers to a hash under either key; one not yet visited only to the old key's.
    const hashLookup = (key: string, value: string) =>
      h.unit('tenant-a', async (u) =>
        (await h.store.findByIdentifierHash(u, 'SERVICE_ID', clientHash(key, value))).map((r) => r.internalIdentityId),
      );
    const migrated = String(sorted[3]!.claims[SERVICE_CLAIM]);
    const waiting = String(sorted[15]!.claims[SERVICE_CLAIM]);
    expect(await hashLookup(oldKey.key, migrated)).toEqual([sorted[3]!.id]);
    expect(await hashLookup(newKey.key, migrated)).toEqual([sorted[3]!.id]);
    expect(await hashLookup(oldKey.key, waiting)).toEqual([sorted[15]!.id]);
    expect(await hashLookup(newKey.key, waiting)).toEqual([]);
    const during = await h.unit('tenant-a', async (u) => {
      const created = await h.store.createIdentity(u, {
        claims: { [SERVICE_CLAIM]: 'SVC-during', email: 'during@mail.example' },
        assurance,
      });
      await h.store.bindWallet(u, created.internalIdentityId, 'did:jwk:during');
      await h.store.bindWallet(u, sorted[0]!.id, 'did:jwk:visited-late');
      await h.store.bindFederation(u, sorted[22]!.id, ISSUER, 'not-yet-visited-late');
      return created;
    });
    sorted[0]!.wallets.push('did:jwk:visited-late');
    sorted[22]!.subjects.push('not-yet-visited-late');
    const duringSeeded: Seeded = {
      id: during.internalIdentityId,
      claims: during.claims,
      wallets: ['did:jwk:during'],
      subjects: [],
    };
    await expect(newRunner(h, { audit }).start('tenant-a')).rejects.toMatchObject({ code: 'conflict' });

    // A new runner, with a key manager of its own (a restarted process), continues after the cursor.
    const second = newRunner(h, { audit, keys: h.newKeyManager() });
    const done = await second.resume('tenant-a', { principalId: 'operator-1' });
    const createdVisited = during.internalIdentityId > cursor ? 1 : 0;
    expect(done).toMatchObject({
      status: 'COMPLETED',
      recordsProcessed: 23,
      recordsFailed: 0,
      recordsSkipped: createdVisited,
      recordsPurged: 1,
      error: null,
    });
    expect(done.recordsProcessed + done.recordsFailed + done.recordsSkipped).toBe(23 + createdVisited);
    expect(done.finishedAt).not.toBeNull();

    // Every record is under the new keys, and reads back through a fresh store.
    const [dekKeys, hmacKeys] = [
      await kidsOf(identityDekAlias('tenant-a')),
      await kidsOf(identityHmacAlias('tenant-a')),
    ];
    expect(dekKeys.map(([v, state]) => [v, state])).toEqual([
      [1, 'retired'],
      [2, 'active'],
    ]);
    expect(hmacKeys.map(([v, state]) => [v, state])).toEqual([
      [1, 'retired'],
      [2, 'active'],
    ]);
    const used = await storedKeyUse(h, 'tenant-a');
    expect(used).toEqual({
      claimKids: [dekKeys[1]![2]],
      walletKids: [dekKeys[1]![2]],
      federationKids: [dekKeys[1]![2]],
      indexVersions: [2],
      nextForms: 0,
      state: { dek_version: 2, hmac_version: 2 },
    });
    await expectAllReadable(h, 'tenant-a', [...seeded, duringSeeded]);

    // Lookup hashes: the new shared key matches, the old one no longer does.
    expect((await shared('tenant-a')).key).toBe(newKey.key);
    expect(await hashLookup(oldKey.key, migrated)).toEqual([]);
    expect(await hashLookup(newKey.key, waiting)).toEqual([sorted[15]!.id]);
    await h.unit('tenant-a', async (u) => {
      expect(
        (await h.store.findByIdentifierHash(u, 'KEY', clientHash(newKey.key, 'did:jwk:during'))).map(
          (r) => r.internalIdentityId,
        ),
      ).toEqual([during.internalIdentityId]);
    });

    // The other tenant is untouched.
    expect(await storedKeyUse(h, 'tenant-b')).toEqual(otherBefore);
    await expectAllReadable(h, 'tenant-b', other);

    expect(audit.types('tenant-a')).toEqual([
      KEY_MIGRATION_EVENTS.started,
      KEY_MIGRATION_EVENTS.resumed,
      KEY_MIGRATION_EVENTS.completed,
    ]);
    expect(audit.types('tenant-b')).toEqual([]);
    expect(audit.events.at(-1)).toMatchObject({
      principalId: 'operator-1',
      result: 'success',
      businessIds: { migrationId: done.id },
      details: { recordsProcessed: 23, recordsPurged: 1, fromDekVersion: 1, toDekVersion: 2 },
    });
    // The audit trail names no record: no identity id, claim value or holder key.
    const trail = JSON.stringify(audit.events);
    for (const s of seeded) {
      expect(trail).not.toContain(s.id);
      expect(trail).not.toContain(String(s.claims[SERVICE_CLAIM]));
    }
    expect(await second.history('tenant-a')).toEqual([done]);
  });

  it('a runner that dies after K batches leaves the migration FAILED; a new runner completes it', async () => {
    const seeded = await seed(h, 'tenant-c', 11);
    const audit = new RecordingAudit();
    const crashing = newRunner(h, {
      audit,
      batchSize: 4,
      afterBatch: (progress) => {
        if (progress.batchesCommitted === 1) throw new Error('simulated crash');
      },
    });
    await expect(crashing.start('tenant-c')).rejects.toThrow('simulated crash');
    const [failed] = await crashing.history('tenant-c');
    expect(failed).toMatchObject({
      status: 'FAILED',
      batchesCommitted: 1,
      recordsProcessed: 4,
      error: 'error: simulated crash',
    });
    await expectAllReadable(h, 'tenant-c', seeded);

    const done = await newRunner(h, { audit, batchSize: 4, keys: h.newKeyManager() }).resume('tenant-c');
    expect(done).toMatchObject({
      status: 'COMPLETED',
      recordsProcessed: 11,
      recordsFailed: 0,
      recordsSkipped: 0,
      error: null,
    });
    expect(done.recordsProcessed + done.recordsFailed + done.recordsSkipped).toBe(seeded.length);
    expect(done.batchesCommitted).toBe(3);
    expect((await storedKeyUse(h, 'tenant-c')).indexVersions).toEqual([2]);
    await expectAllReadable(h, 'tenant-c', seeded);
    expect(audit.types('tenant-c')).toEqual([
      KEY_MIGRATION_EVENTS.started,
      KEY_MIGRATION_EVENTS.failed,
      KEY_MIGRATION_EVENTS.resumed,
      KEY_MIGRATION_EVENTS.completed,
    ]);
    expect(audit.events.find((e) => e.type === KEY_MIGRATION_EVENTS.failed)).toMatchObject({ result: 'failure' });
  });

  it('rollback keeps the old keys serving, drops the new forms, and lets a later migration run', async () => {
    const seeded = await seed(h, 'tenant-d', 12);
    const oldKey = await shared('tenant-d');
    const before = await storedKeyUse(h, 'tenant-d');
    const audit = new RecordingAudit();
    const stop = new AbortController();
    const paused = await newRunner(h, { audit, afterBatch: () => stop.abort() }).start('tenant-d', {
      signal: stop.signal,
    });
    expect(paused).toMatchObject({ status: 'IN_PROGRESS', batchesCommitted: 1 });
    const during = await h.unit('tenant-d', async (u) => {
      const created = await h.store.createIdentity(u, { claims: { [SERVICE_CLAIM]: 'SVC-rollback' }, assurance });
      await h.store.bindWallet(u, created.internalIdentityId, 'did:jwk:rollback-during');
      return created;
    });
    expect((await storedKeyUse(h, 'tenant-d')).nextForms).toBeGreaterThan(0);

    const rolledBack = await newRunner(h, { audit, keys: h.newKeyManager() }).rollback('tenant-d');
    expect(rolledBack).toMatchObject({ status: 'ROLLED_BACK', recordsProcessed: 5 });
    expect(rolledBack.finishedAt).not.toBeNull();
    const after = await storedKeyUse(h, 'tenant-d');
    expect(after).toEqual({ ...before, nextForms: 0 });
    expect((await kidsOf(identityDekAlias('tenant-d'))).map(([v, state]) => [v, state])).toEqual([
      [1, 'active'],
      [2, 'retired'],
    ]);
    const duringSeeded: Seeded = {
      id: during.internalIdentityId,
      claims: during.claims,
      wallets: ['did:jwk:rollback-during'],
      subjects: [],
    };
    await expectAllReadable(h, 'tenant-d', [...seeded, duringSeeded]);
    expect((await shared('tenant-d')).key).toBe(oldKey.key);
    await expect(shared('tenant-d', 'next')).rejects.toMatchObject({ code: 'not_found' });
    const probe = String(seeded[4]!.claims[SERVICE_CLAIM]);
    const found = await h.unit('tenant-d', (u) =>
      h.store.findByIdentifierHash(u, 'SERVICE_ID', clientHash(oldKey.key, probe)),
    );
    expect(found.map((r) => r.internalIdentityId)).toEqual([seeded[4]!.id]);
    await expect(newRunner(h, { audit }).rollback('tenant-d')).rejects.toMatchObject({ code: 'not_found' });
    await expect(newRunner(h, { audit }).resume('tenant-d')).rejects.toMatchObject({ code: 'not_found' });

    const again = await newRunner(h, { audit }).start('tenant-d');
    expect(again).toMatchObject({ status: 'COMPLETED', from: { dek: 1, hmac: 1 }, to: { dek: 3, hmac: 3 } });
    expect(again.recordsProcessed + again.recordsSkipped + again.recordsFailed).toBe(13);
    await expectAllReadable(h, 'tenant-d', [...seeded, duringSeeded]);
    expect(audit.types('tenant-d')).toEqual([
      KEY_MIGRATION_EVENTS.started,
      KEY_MIGRATION_EVENTS.rolledBack,
      KEY_MIGRATION_EVENTS.started,
      KEY_MIGRATION_EVENTS.completed,
    ]);
  });

  it('counts records that do not open as failed, ends FAILED, and completes once they are erased', async () => {
    const seeded = await seed(h, 'tenant-e', 6);
    const [x, y] = [seeded[2]!, seeded[3]!];
    // Swapped ciphertexts: each is bound to its own identity, so neither opens on the other's row.
    await h.t.db.withTenant('tenant-e', (sql) =>
      sql.query(
        `UPDATE identities SET encrypted_claims = CASE internal_identity_id WHEN $1::uuid THEN
            (SELECT encrypted_claims FROM identities WHERE internal_identity_id = $2::uuid)
          ELSE (SELECT encrypted_claims FROM identities WHERE internal_identity_id = $1::uuid) END
          WHERE internal_identity_id IN ($1::uuid, $2::uuid)`,
        [x.id, y.id],
      ),
    );
    await expect(h.unit('tenant-e', (u) => h.store.get(u, x.id))).rejects.toMatchObject({ code: 'server_error' });
    const audit = new RecordingAudit();
    const failed = await newRunner(h, { audit }).start('tenant-e');
    expect(failed).toMatchObject({ status: 'FAILED', recordsProcessed: 4, recordsFailed: 2, recordsSkipped: 0 });
    expect(failed.error).toMatch(/^incomplete: \d+ records remain under the old keys$/);
    expect(await newRunner(h, { audit }).resume('tenant-e')).toMatchObject({ status: 'FAILED' });
    const intact = seeded.filter((s) => s !== x && s !== y);
    await expectAllReadable(h, 'tenant-e', intact);

    await h.unit('tenant-e', async (u) => {
      await h.store.erase(u, x.id);
      await h.store.erase(u, y.id);
    });
    const done = await newRunner(h, { audit }).resume('tenant-e');
    expect(done).toMatchObject({ status: 'COMPLETED', recordsProcessed: 4, recordsFailed: 2 });
    await expectAllReadable(h, 'tenant-e', intact);
    expect(audit.types('tenant-e')).toEqual([
      KEY_MIGRATION_EVENTS.started,
      KEY_MIGRATION_EVENTS.failed,
      KEY_MIGRATION_EVENTS.resumed,
      KEY_MIGRATION_EVENTS.failed,
      KEY_MIGRATION_EVENTS.resumed,
      KEY_MIGRATION_EVENTS.completed,
    ]);
  });

  it('keeps one open migration per tenant and one runner at a time', async () => {
    await seed(h, 'tenant-f', 3);
    const audit = new RecordingAudit();
    const stopped = new AbortController();
    stopped.abort();
    const open = await newRunner(h, { audit }).start('tenant-f', { signal: stopped.signal });
    expect(open).toMatchObject({ status: 'IN_PROGRESS', batchesCommitted: 0 });
    await expect(newRunner(h, { audit }).start('tenant-f')).rejects.toMatchObject({ code: 'conflict' });
    // The database refuses a second open migration whatever the code does.
    await expect(
      h.t.db.withTenant('tenant-f', (sql) =>
        sql.query(
          `INSERT INTO key_migrations (id, status, old_dek_version, new_dek_version, old_hmac_version, new_hmac_version,
                                       batch_size, started_at, updated_at)
           VALUES (gen_random_uuid(), 'FAILED', 1, 2, 1, 2, 5, now(), now())`,
        ),
      ),
    ).rejects.toMatchObject({ code: 'already_exists' });

    // While one runner works, no other may resume or roll back the migration.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inBatch = new Promise<void>((resolve) => (entered = resolve));
    const busy = newRunner(h, {
      audit,
      batchSize: 1,
      afterBatch: async () => {
        entered();
        await held;
      },
    }).resume('tenant-f');
    await inBatch;
    await expect(newRunner(h, { audit }).resume('tenant-f')).rejects.toMatchObject({ code: 'conflict' });
    await expect(newRunner(h, { audit }).rollback('tenant-f')).rejects.toMatchObject({ code: 'conflict' });
    release();
    expect(await busy).toMatchObject({ status: 'COMPLETED', recordsProcessed: 3 });
    await expect(newRunner(h, { audit }).resume('tenant-f')).rejects.toMatchObject({ code: 'not_found' });
  });
});
