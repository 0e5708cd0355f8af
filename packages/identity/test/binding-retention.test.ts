import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import {
  BINDING_RETENTION_INTERVAL_SECONDS,
  BINDING_RETENTION_JOB,
  bindingRetentionJob,
} from '../src/jobs/binding-retention-job.js';
import { assurance, openHarness, START, type Harness } from './support.js';
import { ISSUER } from './seed.js';

const DAY = 86_400;

interface BindingRow {
  table: string;
  identity_id: string;
  soft_deleted_at: Date | null;
}

describe.each(DATABASE_KINDS)('binding retention job (%s)', (kind) => {
  let h: Harness;

  beforeAll(async () => {
    h = await openHarness(kind, 'tenant-a', 'tenant-b');
  });
  afterAll(async () => {
    await h?.close();
  });

  const job = () =>
    bindingRetentionJob({
      db: h.t.db,
      tenants: { list: () => [{ id: 'tenant-a' }, { id: 'tenant-b' }] },
      clock: h.clock,
    });
  const run = () => job().run(new AbortController().signal);
  const at = (days: number, seconds = 0) => h.clock.set(new Date(START.getTime() + (days * DAY + seconds) * 1000));

  async function bindings(tenantId: string): Promise<Map<string, string>> {
    const rows = await h.superuser(
      `SELECT 'wallet' AS table, identity_id::text, soft_deleted_at FROM wallet_bindings WHERE tenant_id = $1
       UNION ALL
       SELECT 'federation', identity_id::text, soft_deleted_at FROM federation_bindings WHERE tenant_id = $1`,
      [tenantId],
    );
    return new Map(
      (rows as unknown as BindingRow[]).map((r) => [
        `${r.table}:${r.identity_id}`,
        r.soft_deleted_at === null ? 'live' : `soft:${new Date(r.soft_deleted_at).toISOString()}`,
      ]),
    );
  }

  async function identityWith(tenantId: string, name: string) {
    return h.unit(tenantId, async (u) => {
      const identity = await h.store.createIdentity(u, { claims: { service_id: name }, assurance });
      await h.store.bindWallet(u, identity.internalIdentityId, `did:jwk:${name}`);
      await h.store.bindFederation(u, identity.internalIdentityId, ISSUER, `sub-${name}`);
      return identity.internalIdentityId;
    });
  }

  it('runs hourly under its own name', () => {
    expect(job()).toMatchObject({ name: BINDING_RETENTION_JOB, intervalSeconds: BINDING_RETENTION_INTERVAL_SECONDS });
    expect(BINDING_RETENTION_INTERVAL_SECONDS).toBe(3600);
  });

  it('soft-deletes at exactly the inactivity threshold, hard-deletes 30 days later, and touches nothing else', async () => {
    at(0);
    const stale = await identityWith('tenant-a', 'stale');
    const used = await identityWith('tenant-a', 'used');
    at(10);
    const younger = await identityWith('tenant-a', 'younger');
    at(0);
    const otherTenant = await identityWith('tenant-b', 'other-stale');
    // `used` logs in on day 500 with its wallet: its wallet binding's clock restarts, its federation binding's not.
    at(500);
    await h.unit('tenant-a', (u) => h.store.findByHolderKey(u, 'did:jwk:used'));
    at(100);
    await h.unit('tenant-b', (u) => h.store.findByFederationSubject(u, ISSUER, 'sub-other-stale'));

    at(730, -1);
    await run();
    expect([...(await bindings('tenant-a')).values()].every((state) => state === 'live')).toBe(true);

    at(730);
    await run();
    const softAt = `soft:${new Date(START.getTime() + 730 * DAY * 1000).toISOString()}`;
    expect(await bindings('tenant-a')).toEqual(
      new Map([
        [`wallet:${stale}`, softAt],
        [`federation:${stale}`, softAt],
        [`wallet:${used}`, 'live'],
        [`federation:${used}`, softAt],
        [`wallet:${younger}`, 'live'],
        [`federation:${younger}`, 'live'],
      ]),
    );
    // Tenant B: the wallet binding is as old, the federation binding was used on day 100.
    expect(await bindings('tenant-b')).toEqual(
      new Map([
        [`wallet:${otherTenant}`, softAt],
        [`federation:${otherTenant}`, 'live'],
      ]),
    );
    await h.unit('tenant-a', async (u) => {
      expect(await h.store.findByHolderKey(u, 'did:jwk:stale')).toBeNull();
      expect(await h.store.findByFederationSubject(u, ISSUER, 'sub-stale')).toBeNull();
      expect(await h.store.findByIdentifier(u, 'KEY', 'did:jwk:stale')).toEqual([]);
      // The identity itself stays: retention concerns bindings (erasure is an explicit request).
      expect((await h.store.get(u, stale))?.bindings).toMatchObject({ walletBound: false, federationBound: false });
      expect((await h.store.findByHolderKey(u, 'did:jwk:used'))?.internalIdentityId).toBe(used);
    });

    // Day 740: `younger` reaches the threshold; the first soft deletions are not yet 30 days old.
    at(740);
    await run();
    expect((await bindings('tenant-a')).get(`wallet:${younger}`)).toMatch(/^soft:/);
    expect((await bindings('tenant-a')).get(`wallet:${stale}`)).toBe(softAt);

    at(760, -1);
    await run();
    expect((await bindings('tenant-a')).has(`wallet:${stale}`)).toBe(true);

    at(760);
    await run();
    const after = await bindings('tenant-a');
    expect(after.has(`wallet:${stale}`)).toBe(false);
    expect(after.has(`federation:${stale}`)).toBe(false);
    expect(after.has(`federation:${used}`)).toBe(false);
    expect(after.get(`wallet:${used}`)).toBe('live');
    expect(after.get(`wallet:${younger}`)).toMatch(/^soft:/);
    expect(after.get(`federation:${younger}`)).toMatch(/^soft:/);
    expect((await bindings('tenant-b')).has(`wallet:${otherTenant}`)).toBe(false);
    expect((await bindings('tenant-b')).get(`federation:${otherTenant}`)).toBe('live');
    const identities = await h.superuser(`SELECT count(*)::int AS n FROM identities`);
    expect(identities[0]!.n).toBe(4);

    // The holder key of a deleted binding can be bound again.
    await h.unit('tenant-a', (u) => h.store.bindWallet(u, younger, 'did:jwk:stale'));
    expect((await h.unit('tenant-a', (u) => h.store.findByHolderKey(u, 'did:jwk:stale')))?.internalIdentityId).toBe(
      younger,
    );
  });

  it('takes its thresholds from the configuration and refuses impossible ones', () => {
    expect(() =>
      bindingRetentionJob({ db: h.t.db, tenants: { list: () => [] }, clock: h.clock, inactiveDays: 0 }),
    ).toThrow(/retention days/);
    expect(
      bindingRetentionJob({
        db: h.t.db,
        tenants: { list: () => [] },
        clock: h.clock,
        inactiveDays: 1,
        softDeleteDays: 0,
      }).name,
    ).toBe(BINDING_RETENTION_JOB);
  });
});
