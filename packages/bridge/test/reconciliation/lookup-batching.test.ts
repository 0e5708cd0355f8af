import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isAppError,
  ManualClock,
  Metrics,
  platformMigrations,
  SoftwareKeyManager,
  withSymmetricKeysMigration,
  type Database,
} from '@tessera/platform';
import {
  countingDatabase,
  DATABASE_KINDS,
  openTestDatabase,
  seedTenants,
  type TestDatabase,
} from '@tessera/platform/testing';
import { exportSharedHmacKey, identityMigrations, PostgresIdentityStore } from '@tessera/identity';
import { bridgeMigrations, computeIdentifierHash } from '../../src/index.js';
import { IdentityLookups } from '../../src/reconciliation/storage/identity-lookups.js';
import { auxiliaryStore } from '../../src/reconciliation/storage/auxiliary-store.js';

/**
 * The batched read path of POST /lookup (000 §4.3) on both engines: concurrent lookups of a tenant share one tenant
 * session, each gets its own answer, a failing statement fails each of its waiters cleanly, tenants never share a
 * statement, and nothing is cached (an erasure is seen by the next lookup).
 */
const MIGRATIONS = withSymmetricKeysMigration([...platformMigrations, ...identityMigrations, ...bridgeMigrations]);
const assurance = { acr: 'urn:test:loa', amr: ['federation'] };
const ALL = new Set(['crm', 'notes']);

describe.each(DATABASE_KINDS)('IdentityLookups (%s)', (kind) => {
  let t: TestDatabase;
  let clock: ManualClock;
  let store: PostgresIdentityStore;
  const keysOf = new Map<string, string>();

  beforeAll(async () => {
    t = await openTestDatabase(kind, MIGRATIONS);
    await seedTenants(t.db, 'alpha', 'beta');
    clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
    const keys = new SoftwareKeyManager({
      db: t.db,
      masterKey: randomBytes(32),
      clock,
      metrics: new Metrics({ collectDefault: false }),
    });
    store = new PostgresIdentityStore({ keys, clock, serviceClaim: 'service_id' });
    for (const tenant of ['alpha', 'beta']) {
      await t.db.withTenant(tenant, (sql) =>
        store.createIdentity({ tenantId: tenant, sql }, { claims: { service_id: 'seed' }, assurance }),
      );
      keysOf.set(tenant, (await exportSharedHmacKey({ db: t.db, keys, clock }, tenant)).key);
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  const create = (tenant: string, claims: Record<string, unknown>) =>
    t.db.withTenant(tenant, (sql) => store.createIdentity({ tenantId: tenant, sql }, { claims, assurance }));
  const query = (tenant: string, serviceId: string, categories: ReadonlySet<string> = ALL) => ({
    type: 'SERVICE_ID' as const,
    hash: computeIdentifierHash(keysOf.get(tenant)!, serviceId),
    categories,
  });
  const lookupsOn = (db: Database) => new IdentityLookups({ db, identities: store, clock });
  /** The test database with its tenant sessions replaced. */
  const withSessions = (withTenantSession: Database['withTenantSession']): Database => ({
    kind: t.db.kind,
    withTenant: (tenantId, fn) => t.db.withTenant(tenantId, fn),
    withTenantSession,
    withPlatform: (fn) => t.db.withPlatform(fn),
    withAdvisoryLock: (name, fn) => t.db.withAdvisoryLock(name, fn),
    ping: (timeoutMs) => t.db.ping(timeoutMs),
    changes: t.db.changes,
    close: () => t.db.close(),
  });

  it('answers concurrent lookups of different identities in one session, each with its own identity', async () => {
    const ada = await create('alpha', { service_id: 'S-ada', email: 'ada@example.org' });
    const bob = await create('alpha', { service_id: 'S-bob', email: 'bob@example.org' });
    await create('alpha', { service_id: 'S-twin' });
    await create('alpha', { service_id: 'S-twin' });
    await t.db.withTenant('alpha', (sql) =>
      auxiliaryStore.put(
        sql,
        ada.internalIdentityId,
        { category: 'crm', dataSealed: 'sealed', storedBy: 'c', storedAt: clock.now(), expiresAt: null },
        clock.now(),
      ),
    );
    const counted = countingDatabase(t.db);
    const lookups = lookupsOn(counted.db);

    const notes = new Set(['notes']);
    const [a, narrow, b, missing, twins] = await Promise.all([
      lookups.find('alpha', query('alpha', 'S-ada', new Set(['crm']))),
      lookups.find('alpha', query('alpha', 'S-ada', notes)),
      lookups.find('alpha', query('alpha', 'S-bob', notes)),
      lookups.find('alpha', query('alpha', 'S-nobody')),
      lookups.find('alpha', query('alpha', 'S-twin')),
    ]);
    expect(counted.units()).toBe(1);
    expect(a.identities.map((i) => i.claims)).toEqual([{ service_id: 'S-ada', email: 'ada@example.org' }]);
    expect(a.identities[0]!.internalIdentityId).toBe(ada.internalIdentityId);
    expect(a.categories).toEqual(['crm']);
    expect(b.identities.map((i) => i.internalIdentityId)).toEqual([bob.internalIdentityId]);
    expect(b.categories).toEqual([]);
    expect(missing).toEqual({ identities: [], categories: [] });
    expect(twins.identities).toHaveLength(2);
    expect(twins.categories).toEqual([]);
    // The same identity through another client's projection, in the same batch: only that projection's categories.
    expect(narrow.identities[0]!.internalIdentityId).toBe(ada.internalIdentityId);
    expect(narrow.categories).toEqual([]);
  });

  it('fails an invalid lookup alone', async () => {
    await create('alpha', { service_id: 'S-valid' });
    const lookups = lookupsOn(t.db);
    const [bad, good] = await Promise.allSettled([
      lookups.find('alpha', { ...query('alpha', 'S-valid'), hash: 'not-a-hash' }),
      lookups.find('alpha', query('alpha', 'S-valid')),
    ]);
    expect(bad.status).toBe('rejected');
    expect((bad as PromiseRejectedResult).reason).toMatchObject({ code: 'invalid_request', field: 'identifierHash' });
    expect(good.status === 'fulfilled' && good.value.identities).toHaveLength(1);
  });

  it('fails each waiter of a failing statement with a clean error, and serves the next lookup', async () => {
    await create('alpha', { service_id: 'S-after' });
    let broken = true;
    // A statement the database refuses (an unknown table): its error text must not reach the callers.
    const failing = withSessions((tenantId, fn) =>
      broken
        ? t.db.withTenantSession(tenantId, (sql) =>
            fn({ query: () => sql.query('SELECT * FROM no_such_table'), exec: (script) => sql.exec(script) }),
          )
        : t.db.withTenantSession(tenantId, fn),
    );
    const lookups = lookupsOn(failing);
    const settled = await Promise.allSettled([
      lookups.find('alpha', query('alpha', 'S-after')),
      lookups.find('alpha', query('alpha', 'S-nobody')),
    ]);
    for (const s of settled) {
      expect(s.status).toBe('rejected');
      const reason = (s as PromiseRejectedResult).reason;
      expect(isAppError(reason)).toBe(true);
      expect(reason).toMatchObject({ code: 'server_error', message: 'The identity lookup failed.' });
    }
    broken = false;
    expect((await lookups.find('alpha', query('alpha', 'S-after'))).identities).toHaveLength(1);
  });

  it('never lets two tenants share a statement', async () => {
    const inAlpha = await create('alpha', { service_id: 'S-both' });
    const inBeta = await create('beta', { service_id: 'S-both' });
    const sessions: string[] = [];
    const lookups = lookupsOn(
      withSessions((tenantId, fn) => (sessions.push(tenantId), t.db.withTenantSession(tenantId, fn))),
    );
    const [alpha, beta, alphaWithBetaHash] = await Promise.all([
      lookups.find('alpha', query('alpha', 'S-both')),
      lookups.find('beta', query('beta', 'S-both')),
      lookups.find('alpha', query('beta', 'S-both')),
    ]);
    expect(sessions.sort()).toEqual(['alpha', 'beta']);
    expect(alpha.identities.map((i) => i.internalIdentityId)).toEqual([inAlpha.internalIdentityId]);
    expect(beta.identities.map((i) => i.internalIdentityId)).toEqual([inBeta.internalIdentityId]);
    // Each tenant's lookup key is its own: beta's hash finds nothing in alpha.
    expect(alphaWithBetaHash.identities).toEqual([]);
  });

  it('does not find an erased identity on the next lookup', async () => {
    const gone = await create('alpha', { service_id: 'S-erased' });
    const lookups = lookupsOn(t.db);
    expect((await lookups.find('alpha', query('alpha', 'S-erased'))).identities).toHaveLength(1);
    await t.db.withTenant('alpha', (sql) => store.erase({ tenantId: 'alpha', sql }, gone.internalIdentityId));
    expect(await lookups.find('alpha', query('alpha', 'S-erased'))).toEqual({ identities: [], categories: [] });
  });
});
