import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metrics, SoftwareKeyManager, type Database, type Sql } from '@tessera/platform';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { PostgresIdentityStore } from '../src/storage/postgres-identity-store.js';
import { exportSharedHmacKey } from '../src/commands/export-shared-hmac-key.js';
import { identityHmacAlias } from '../src/domain/key-aliases.js';
import { assurance, clientHash, openHarness, START, type Harness } from './support.js';

const ISSUER = 'https://idp.uni.example';

describe.each(DATABASE_KINDS)('PostgresIdentityStore (%s)', (kind) => {
  let h: Harness;

  beforeAll(async () => {
    h = await openHarness(kind, 'tenant-a', 'tenant-b', 'tenant-c', 'tenant-d', 'tenant-batch');
  });
  afterAll(async () => {
    await h?.close();
  });

  const create = (tenantId: string, claims: Record<string, unknown>) =>
    h.unit(tenantId, (u) => h.store.createIdentity(u, { claims, assurance }));

  it('creates an identity and finds it by id, service id, EPPN, holder key and federation subject', async () => {
    const claims = { service_id: 'S-1001', eduperson_principal_name: 'ada@uni.example', email: 'ada@example.org' };
    const created = await create('tenant-a', claims);
    expect(created).toEqual({
      internalIdentityId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      claims,
      assurance,
      bindings: { walletBound: false, federationBound: false, lastAuthenticatedAt: null },
      createdAt: START.toISOString(),
    });
    const id = created.internalIdentityId;
    await h.unit('tenant-a', async (u) => {
      expect(await h.store.get(u, id)).toEqual(created);
      expect((await h.store.findByIdentifier(u, 'SERVICE_ID', 'S-1001')).map((r) => r.internalIdentityId)).toEqual([
        id,
      ]);
      expect((await h.store.findByIdentifier(u, 'EPPN', 'ada@uni.example')).map((r) => r.internalIdentityId)).toEqual([
        id,
      ]);
      expect(await h.store.findByIdentifier(u, 'SERVICE_ID', 'ada@uni.example')).toEqual([]);
      expect(await h.store.findByIdentifier(u, 'SERVICE_ID', 's-1001')).toEqual([]);
      await h.store.bindWallet(u, id, 'did:jwk:holder-ada');
      await h.store.bindFederation(u, id, ISSUER, 'ada-sub');
    });

    h.clock.advance(60);
    const byHolder = await h.unit('tenant-a', (u) => h.store.findByHolderKey(u, 'did:jwk:holder-ada'));
    const usedAt = new Date(START.getTime() + 60_000).toISOString();
    expect(byHolder).toEqual({
      ...created,
      bindings: { walletBound: true, federationBound: true, lastAuthenticatedAt: usedAt },
    });
    const rows = await h.t.db.withTenant('tenant-a', (sql) =>
      sql.query<{ last_used_at: Date }>(`SELECT last_used_at FROM wallet_bindings WHERE identity_id = $1`, [id]),
    );
    expect(rows.rows.map((r) => new Date(r.last_used_at).toISOString())).toEqual([usedAt]);

    h.clock.advance(60);
    await h.unit('tenant-a', async (u) => {
      const byFederation = await h.store.findByFederationSubject(u, ISSUER, 'ada-sub');
      expect(byFederation?.bindings.lastAuthenticatedAt).toBe(new Date(START.getTime() + 120_000).toISOString());
      expect(await h.store.findByFederationSubject(u, 'https://other.example', 'ada-sub')).toBeNull();
      expect((await h.store.findByIdentifier(u, 'KEY', 'did:jwk:holder-ada')).map((r) => r.internalIdentityId)).toEqual(
        [id],
      );
      expect(await h.store.findByHolderKey(u, 'did:jwk:someone-else')).toBeNull();
    });

    // Replacing the claims re-indexes the identifiers.
    await h.unit('tenant-a', (u) => h.store.updateClaims(u, id, { service_id: 'S-2002', email: 'ada@example.org' }));
    await h.unit('tenant-a', async (u) => {
      expect(await h.store.findByIdentifier(u, 'SERVICE_ID', 'S-1001')).toEqual([]);
      expect(await h.store.findByIdentifier(u, 'EPPN', 'ada@uni.example')).toEqual([]);
      const [found] = await h.store.findByIdentifier(u, 'SERVICE_ID', 'S-2002');
      expect(found?.claims).toEqual({ service_id: 'S-2002', email: 'ada@example.org' });
      // The bindings are untouched by a claims update.
      expect((await h.store.findByHolderKey(u, 'did:jwk:holder-ada'))?.internalIdentityId).toBe(id);
    });
  });

  it('finds every identity sharing an identifier, and indexes numeric claim values as text', async () => {
    const first = await create('tenant-a', { service_id: 'shared-7', email: 'one@example.org' });
    const second = await create('tenant-a', { service_id: 'shared-7', email: 'two@example.org' });
    const numeric = await create('tenant-a', { service_id: 424242 });
    await h.unit('tenant-a', async (u) => {
      const found = await h.store.findByIdentifier(u, 'SERVICE_ID', 'shared-7');
      expect(found.map((r) => r.internalIdentityId).sort()).toEqual(
        [first.internalIdentityId, second.internalIdentityId].sort(),
      );
      expect((await h.store.findByIdentifier(u, 'SERVICE_ID', '424242')).map((r) => r.internalIdentityId)).toEqual([
        numeric.internalIdentityId,
      ]);
    });
  });

  it('answers lookups by a client-computed hash under the exported shared key', async () => {
    const created = await create('tenant-a', { service_id: 'S-hash', eduperson_principal_name: 'hash@uni.example' });
    await h.unit('tenant-a', (u) => h.store.bindWallet(u, created.internalIdentityId, 'did:key:z6MkHash'));
    const shared = await exportSharedHmacKey({ db: h.t.db, keys: h.keys, clock: h.clock }, 'tenant-a');
    expect(shared).toMatchObject({ tenantId: 'tenant-a', algorithm: 'HS256', version: 1 });
    expect(Buffer.from(shared.key, 'base64url')).toHaveLength(32);

    await h.unit('tenant-a', async (u) => {
      for (const [type, value] of [
        ['SERVICE_ID', 'S-hash'],
        ['EPPN', 'hash@uni.example'],
        ['KEY', 'did:key:z6MkHash'],
      ] as const) {
        const hash = clientHash(shared.key, value);
        expect(hash).toMatch(/^[A-Za-z0-9_-]{43}$/);
        const found = await h.store.findByIdentifierHash(u, type, hash);
        expect(found.map((r) => r.internalIdentityId)).toEqual([created.internalIdentityId]);
        expect(found[0]?.claims).toEqual({ service_id: 'S-hash', eduperson_principal_name: 'hash@uni.example' });
      }
      // The same hash under another type, or a hash of another value, matches nothing.
      expect(await h.store.findByIdentifierHash(u, 'EPPN', clientHash(shared.key, 'S-hash'))).toEqual([]);
      expect(await h.store.findByIdentifierHash(u, 'SERVICE_ID', clientHash(shared.key, 'S-hash '))).toEqual([]);
      await expect(
        h.store.findByIdentifierHash(u, 'SERVICE_ID', `${clientHash(shared.key, 'S-hash')}=`),
      ).rejects.toMatchObject({
        code: 'invalid_request',
        field: 'identifierHash',
      });
      await expect(
        h.store.findByIdentifierHash(u, 'EMAIL' as 'EPPN', clientHash(shared.key, 'x')),
      ).rejects.toMatchObject({
        code: 'invalid_request',
        field: 'identifierType',
      });
    });
  });

  it('answers a batch of hash lookups in one statement, in order, each query settling on its own', async () => {
    const one = await create('tenant-batch', { service_id: 'S-batch-1', eduperson_principal_name: 'one@uni.example' });
    const two = await create('tenant-batch', { service_id: 'S-batch-2' });
    const twinA = await create('tenant-batch', { service_id: 'S-batch-twin' });
    const twinB = await create('tenant-batch', { service_id: 'S-batch-twin' });
    await h.unit('tenant-batch', (u) => h.store.bindWallet(u, two.internalIdentityId, 'did:key:z6MkBatch'));
    const { key } = await exportSharedHmacKey({ db: h.t.db, keys: h.keys, clock: h.clock }, 'tenant-batch');
    const statements: string[] = [];
    const settled = await h.unit('tenant-batch', (u) =>
      h.store.findByIdentifierHashes(
        {
          ...u,
          sql: {
            query: (text, params) => (statements.push(text), u.sql.query(text, params)),
            exec: (s) => u.sql.exec(s),
          },
        },
        [
          { type: 'SERVICE_ID', hash: clientHash(key, 'S-batch-2') },
          { type: 'SERVICE_ID', hash: clientHash(key, 'S-nobody') },
          { type: 'SERVICE_ID', hash: 'not-a-hash' },
          { type: 'EPPN', hash: clientHash(key, 'one@uni.example') },
          { type: 'SERVICE_ID', hash: clientHash(key, 'S-batch-twin') },
          { type: 'KEY', hash: clientHash(key, 'did:key:z6MkBatch') },
          { type: 'SERVICE_ID', hash: clientHash(key, 'S-batch-2') },
        ],
      ),
    );
    expect(statements).toHaveLength(1);
    const ids = settled.map((s) => (s.status === 'fulfilled' ? s.value.map((r) => r.internalIdentityId) : s.status));
    expect(ids).toEqual([
      [two.internalIdentityId],
      [],
      'rejected',
      [one.internalIdentityId],
      // Same creation time: ordered by id.
      [twinA.internalIdentityId, twinB.internalIdentityId].sort(),
      [two.internalIdentityId],
      [two.internalIdentityId],
    ]);
    expect((settled[2] as PromiseRejectedResult).reason).toMatchObject({
      code: 'invalid_request',
      field: 'identifierHash',
    });
    expect(settled[0]).toMatchObject({ status: 'fulfilled', value: [{ claims: { service_id: 'S-batch-2' } }] });
    expect(await h.unit('tenant-batch', (u) => h.store.findByIdentifierHashes(u, []))).toEqual([]);
  });

  it("keeps tenants apart: tenant B neither sees nor binds tenant A's identities", async () => {
    const a = await create('tenant-a', { service_id: 'S-tenant', eduperson_principal_name: 'tenant@uni.example' });
    const aId = a.internalIdentityId;
    await h.unit('tenant-a', async (u) => {
      await h.store.bindWallet(u, aId, 'did:jwk:tenant-holder');
      await h.store.bindFederation(u, aId, ISSUER, 'tenant-sub');
    });
    const sharedA = await exportSharedHmacKey({ db: h.t.db, keys: h.keys, clock: h.clock }, 'tenant-a');
    const sharedB = await exportSharedHmacKey({ db: h.t.db, keys: h.keys, clock: h.clock }, 'tenant-b');
    expect(sharedB.key).not.toBe(sharedA.key);

    await h.unit('tenant-b', async (u) => {
      expect(await h.store.get(u, aId)).toBeNull();
      expect(await h.store.findByIdentifier(u, 'SERVICE_ID', 'S-tenant')).toEqual([]);
      expect(await h.store.findByIdentifier(u, 'EPPN', 'tenant@uni.example')).toEqual([]);
      expect(await h.store.findByIdentifier(u, 'KEY', 'did:jwk:tenant-holder')).toEqual([]);
      expect(await h.store.findByIdentifierHash(u, 'SERVICE_ID', clientHash(sharedA.key, 'S-tenant'))).toEqual([]);
      expect(await h.store.findByIdentifierHash(u, 'SERVICE_ID', clientHash(sharedB.key, 'S-tenant'))).toEqual([]);
      expect(await h.store.findByHolderKey(u, 'did:jwk:tenant-holder')).toBeNull();
      expect(await h.store.findByFederationSubject(u, ISSUER, 'tenant-sub')).toBeNull();
      await expect(h.store.updateClaims(u, aId, { service_id: 'stolen' })).rejects.toMatchObject({
        code: 'not_found',
        wireCode: 'identity_not_found',
      });
      await expect(h.store.bindWallet(u, aId, 'did:jwk:intruder')).rejects.toMatchObject({ code: 'not_found' });
      await expect(h.store.bindFederation(u, aId, ISSUER, 'intruder-sub')).rejects.toMatchObject({ code: 'not_found' });
      await h.store.erase(u, aId);
    });

    // Tenant B may hold the same identifiers for its own identity; tenant A's records are untouched by all of it.
    const b = await create('tenant-b', { service_id: 'S-tenant' });
    await h.unit('tenant-b', async (u) => {
      await h.store.bindWallet(u, b.internalIdentityId, 'did:jwk:tenant-holder');
      await h.store.bindFederation(u, b.internalIdentityId, ISSUER, 'tenant-sub');
      expect((await h.store.findByHolderKey(u, 'did:jwk:tenant-holder'))?.internalIdentityId).toBe(
        b.internalIdentityId,
      );
    });
    await h.unit('tenant-a', async (u) => {
      const again = await h.store.get(u, aId);
      expect(again?.claims).toEqual(a.claims);
      expect(again?.bindings).toMatchObject({ walletBound: true, federationBound: true });
      expect((await h.store.findByHolderKey(u, 'did:jwk:tenant-holder'))?.internalIdentityId).toBe(aId);
      expect((await h.store.findByFederationSubject(u, ISSUER, 'tenant-sub'))?.internalIdentityId).toBe(aId);
      expect((await h.store.findByIdentifier(u, 'SERVICE_ID', 'S-tenant')).map((r) => r.internalIdentityId)).toEqual([
        aId,
      ]);
    });
  });

  it('binds idempotently and refuses a holder key or federation subject bound to another identity', async () => {
    const one = await create('tenant-a', { service_id: 'S-one' });
    const two = await create('tenant-a', { service_id: 'S-two' });
    await h.unit('tenant-a', async (u) => {
      await h.store.bindWallet(u, one.internalIdentityId, 'did:jwk:conflict');
      await h.store.bindWallet(u, one.internalIdentityId, 'did:jwk:conflict');
      await expect(h.store.bindWallet(u, two.internalIdentityId, 'did:jwk:conflict')).rejects.toMatchObject({
        code: 'conflict',
      });
      await h.store.bindFederation(u, one.internalIdentityId, ISSUER, 'conflict-sub');
      await h.store.bindFederation(u, one.internalIdentityId, ISSUER, 'conflict-sub');
      await expect(h.store.bindFederation(u, two.internalIdentityId, ISSUER, 'conflict-sub')).rejects.toMatchObject({
        code: 'conflict',
      });
      // The same subject at another issuer is another subject; one identity may hold several of each.
      await h.store.bindFederation(u, two.internalIdentityId, 'https://idp.other.example', 'conflict-sub');
      await h.store.bindWallet(u, one.internalIdentityId, 'did:jwk:second-wallet');
      await expect(h.store.bindWallet(u, '00000000-0000-4000-8000-000000000000', 'did:jwk:x')).rejects.toMatchObject({
        code: 'not_found',
        wireCode: 'identity_not_found',
      });
      await expect(h.store.bindWallet(u, 'not-a-uuid', 'did:jwk:x')).rejects.toMatchObject({ code: 'not_found' });
    });
    const counts = await h.t.db.withTenant('tenant-a', (sql) =>
      sql.query<{ wallets: number; federations: number }>(
        `SELECT (SELECT count(*)::int FROM wallet_bindings WHERE identity_id = $1) AS wallets,
                (SELECT count(*)::int FROM federation_bindings WHERE identity_id = $1) AS federations`,
        [one.internalIdentityId],
      ),
    );
    expect(counts.rows[0]).toEqual({ wallets: 2, federations: 1 });
  });

  it('lets exactly one of two racing transactions bind a holder key', async () => {
    const one = await create('tenant-a', { service_id: 'S-race-1' });
    const two = await create('tenant-a', { service_id: 'S-race-2' });
    const outcomes = await Promise.allSettled(
      [one, two].map((identity) =>
        h.unit('tenant-a', (u) => h.store.bindWallet(u, identity.internalIdentityId, 'did:jwk:raced')),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect((outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({
      code: 'conflict',
    });
    const holder = await h.unit('tenant-a', (u) => h.store.findByHolderKey(u, 'did:jwk:raced'));
    expect([one.internalIdentityId, two.internalIdentityId]).toContain(holder?.internalIdentityId);
  });

  it('hides soft-deleted bindings from every lookup, and lets their keys be bound again', async () => {
    const old = await create('tenant-a', { service_id: 'S-soft' });
    const fresh = await create('tenant-a', { service_id: 'S-soft-new' });
    await h.unit('tenant-a', async (u) => {
      await h.store.bindWallet(u, old.internalIdentityId, 'did:jwk:soft');
      await h.store.bindFederation(u, old.internalIdentityId, ISSUER, 'soft-sub');
    });
    const shared = await exportSharedHmacKey({ db: h.t.db, keys: h.keys, clock: h.clock }, 'tenant-a');
    await h.t.db.withTenant('tenant-a', async (sql) => {
      await sql.query(`UPDATE wallet_bindings SET soft_deleted_at = $2 WHERE identity_id = $1`, [
        old.internalIdentityId,
        START,
      ]);
      await sql.query(`UPDATE federation_bindings SET soft_deleted_at = $2 WHERE identity_id = $1`, [
        old.internalIdentityId,
        START,
      ]);
    });
    await h.unit('tenant-a', async (u) => {
      expect(await h.store.findByHolderKey(u, 'did:jwk:soft')).toBeNull();
      expect(await h.store.findByIdentifier(u, 'KEY', 'did:jwk:soft')).toEqual([]);
      expect(await h.store.findByIdentifierHash(u, 'KEY', clientHash(shared.key, 'did:jwk:soft'))).toEqual([]);
      expect(await h.store.findByFederationSubject(u, ISSUER, 'soft-sub')).toBeNull();
      expect((await h.store.get(u, old.internalIdentityId))?.bindings).toMatchObject({
        walletBound: false,
        federationBound: false,
      });
      await h.store.bindWallet(u, fresh.internalIdentityId, 'did:jwk:soft');
      await h.store.bindFederation(u, fresh.internalIdentityId, ISSUER, 'soft-sub');
      expect((await h.store.findByHolderKey(u, 'did:jwk:soft'))?.internalIdentityId).toBe(fresh.internalIdentityId);
      expect((await h.store.findByFederationSubject(u, ISSUER, 'soft-sub'))?.internalIdentityId).toBe(
        fresh.internalIdentityId,
      );
    });
  });

  it('erases an identity with its index rows and bindings, in the caller’s transaction, idempotently', async () => {
    const doomed = await create('tenant-a', { service_id: 'S-erase', eduperson_principal_name: 'erase@uni.example' });
    const id = doomed.internalIdentityId;
    await h.unit('tenant-a', async (u) => {
      await h.store.bindWallet(u, id, 'did:jwk:erase');
      await h.store.bindFederation(u, id, ISSUER, 'erase-sub');
    });
    // Erased in a unit of work that then fails: nothing is gone.
    await expect(
      h.unit('tenant-a', async (u) => {
        await h.store.erase(u, id);
        expect(await h.store.get(u, id)).toBeNull();
        throw new Error('the caller fails after the erasure');
      }),
    ).rejects.toThrow('the caller fails');
    expect(await h.unit('tenant-a', (u) => h.store.get(u, id))).not.toBeNull();

    await h.unit('tenant-a', (u) => h.store.erase(u, id));
    await h.unit('tenant-a', (u) => h.store.erase(u, id));
    await h.unit('tenant-a', async (u) => {
      expect(await h.store.get(u, id)).toBeNull();
      expect(await h.store.findByIdentifier(u, 'SERVICE_ID', 'S-erase')).toEqual([]);
      expect(await h.store.findByHolderKey(u, 'did:jwk:erase')).toBeNull();
      expect(await h.store.findByFederationSubject(u, ISSUER, 'erase-sub')).toBeNull();
      await expect(h.store.updateClaims(u, id, {})).rejects.toMatchObject({ code: 'not_found' });
    });
    const left = await h.superuser(
      `SELECT (SELECT count(*) FROM identities WHERE internal_identity_id = $1)
            + (SELECT count(*) FROM identity_identifiers WHERE identity_id = $1)
            + (SELECT count(*) FROM wallet_bindings WHERE identity_id = $1)
            + (SELECT count(*) FROM federation_bindings WHERE identity_id = $1) AS n`,
      [id],
    );
    expect(Number(left[0]!.n)).toBe(0);
  });

  it('creates the tenant keys on first use, and leaves none behind when that first use rolls back', async () => {
    await expect(
      h.unit('tenant-c', async (u) => {
        await h.store.createIdentity(u, { claims: { service_id: 'S-first' }, assurance });
        throw new Error('the caller fails');
      }),
    ).rejects.toThrow('the caller fails');
    expect(await h.keys.listSymmetric(identityHmacAlias('tenant-c'))).toEqual([]);
    const created = await create('tenant-c', { service_id: 'S-first' });
    expect(await h.keys.listSymmetric(identityHmacAlias('tenant-c'))).toEqual([
      expect.objectContaining({ version: 1, state: 'active', exportable: true }),
    ]);
    const found = await h.unit('tenant-c', (u) => h.store.findByIdentifier(u, 'SERVICE_ID', 'S-first'));
    expect(found.map((r) => r.internalIdentityId)).toEqual([created.internalIdentityId]);
  });

  it('refuses malformed input with invalid_request and answers null for an id that is no UUID', async () => {
    await h.unit('tenant-a', async (u) => {
      await expect(
        h.store.createIdentity(u, { claims: [] as unknown as Record<string, unknown>, assurance }),
      ).rejects.toMatchObject({
        code: 'invalid_request',
        field: 'claims',
      });
      await expect(h.store.createIdentity(u, { claims: {}, assurance: { acr: '', amr: [] } })).rejects.toMatchObject({
        field: 'assurance.acr',
      });
      await expect(
        h.store.createIdentity(u, { claims: {}, assurance: { acr: 'x', amr: [1] as unknown as string[] } }),
      ).rejects.toMatchObject({ field: 'assurance.amr' });
      await expect(h.store.findByHolderKey(u, '')).rejects.toMatchObject({ code: 'invalid_request' });
      await expect(h.store.findByIdentifier(u, 'PHONE' as 'KEY', 'x')).rejects.toMatchObject({
        code: 'invalid_request',
      });
      expect(await h.store.get(u, "1' OR '1'='1")).toBeNull();
    });
  });

  it("never opens a unit of work of its own: key rows are read through the caller's, then served from memory", async () => {
    let ownUnits = 0;
    const counted: Database = {
      kind: h.t.db.kind,
      withTenant: (tenantId, fn) => (ownUnits++, h.t.db.withTenant(tenantId, fn)),
      withTenantSession: (tenantId, fn) => (ownUnits++, h.t.db.withTenantSession(tenantId, fn)),
      withPlatform: (fn) => (ownUnits++, h.t.db.withPlatform(fn)),
      withAdvisoryLock: (name, fn) => h.t.db.withAdvisoryLock(name, fn),
      ping: (timeoutMs) => h.t.db.ping(timeoutMs),
      changes: h.t.db.changes,
      close: () => h.t.db.close(),
    };
    const keys = new SoftwareKeyManager({
      db: counted,
      masterKey: h.masterKey,
      clock: h.clock,
      metrics: new Metrics({ collectDefault: false }),
    });
    const store = new PostgresIdentityStore({ keys, clock: h.clock, serviceClaim: 'service_id' });
    let keyReads = 0;
    const watched = (sql: Sql): Sql => ({
      query: (text, params) => {
        if (text.includes('kms_symmetric_keys')) keyReads++;
        return sql.query(text, params);
      },
      exec: (script) => sql.exec(script),
    });
    const inUnit = <T>(fn: (u: { tenantId: string; sql: Sql }) => Promise<T>) =>
      h.t.db.withTenant('tenant-d', (sql) => fn({ tenantId: 'tenant-d', sql: watched(sql) }));

    // Cold: the tenant's keys are created and read inside the caller's transaction.
    const created = await inUnit(async (u) => {
      const identity = await store.createIdentity(u, { claims: { service_id: 'S-hot' }, assurance });
      await store.bindWallet(u, identity.internalIdentityId, 'did:jwk:hot');
      return identity;
    });
    expect(keyReads).toBeGreaterThan(0);
    // Rows written by that very transaction were not cached (it might have rolled back); the next unit caches them.
    const lookUp = () =>
      inUnit(async (u) => {
        expect((await store.findByHolderKey(u, 'did:jwk:hot'))?.claims).toEqual({ service_id: 'S-hot' });
      });
    await lookUp();
    const warm = keyReads;
    await lookUp();
    expect(keyReads).toBe(warm);
    for (let i = 0; i < 20; i++) {
      await inUnit(async (u) => {
        expect((await store.findByHolderKey(u, 'did:jwk:hot'))?.internalIdentityId).toBe(created.internalIdentityId);
        expect(await store.findByIdentifier(u, 'SERVICE_ID', 'S-hot')).toHaveLength(1);
        await store.bindFederation(u, created.internalIdentityId, ISSUER, `hot-${i}`);
      });
    }
    expect(keyReads).toBe(warm);
    expect(ownUnits).toBe(0);
  });
});
