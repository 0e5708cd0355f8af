import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TENANT, DpopReplayStores, ManualClock, PURGE_DPOP_REPLAY_JOB, purgeDpopReplayJob } from '../src/index.js';
import { DATABASE_KINDS, createTestPlatform, type TestPlatform } from '../src/testing/index.js';

const OTHER = 'replay-other';
const fresh = () => randomBytes(16).toString('base64url');

/**
 * The one DPoP replay table of the deployment (RFC 9449 §11.1, issue 13 §8): the token service, the external
 * reconciliation API and the OpenID4VCI issuer all record proofs' keys through `platform.dpopReplay`.
 */
describe.each(DATABASE_KINDS)('DPoP replay state (%s)', (kind) => {
  let t: TestPlatform;
  let clock: ManualClock;
  let stores: DpopReplayStores;

  beforeAll(async () => {
    t = await createTestPlatform(kind);
    await t.platform.tenants.ensure({ id: OTHER, displayName: 'Other' });
    clock = new ManualClock(new Date());
    stores = new DpopReplayStores({ db: t.platform.db, clock, redis: null, redisKeyPrefix: '' });
  });
  afterAll(async () => t?.close());

  const until = (seconds: number) => new Date(clock.now().getTime() + seconds * 1000);

  it('is one tenant-scoped table with row-level security enabled and forced', async () => {
    const rows = await t.platform.db.withPlatform((sql) =>
      sql.query<{ enabled: boolean; forced: boolean; key: string }>(
        `SELECT c.relrowsecurity AS enabled, c.relforcerowsecurity AS forced,
                pg_get_constraintdef(k.oid) AS key
           FROM pg_class c JOIN pg_constraint k ON k.conrelid = c.oid AND k.contype = 'p'
          WHERE c.relname = 'dpop_replay'`,
      ),
    );
    expect(rows.rows).toEqual([{ enabled: true, forced: true, key: 'PRIMARY KEY (tenant_id, jti_key)' }]);
  });

  it('answers true once per key within a tenant; the key is its own in another tenant', async () => {
    const key = fresh();
    expect(await stores.forTenant(DEMO_TENANT).rememberOnce(key, until(66))).toBe(true);
    expect(await stores.forTenant(DEMO_TENANT).rememberOnce(key, until(66))).toBe(false);
    // The platform's own instance reads and writes the same table.
    expect(await t.platform.dpopReplay.forTenant(DEMO_TENANT).rememberOnce(key, until(66))).toBe(false);
    expect(await stores.forTenant(OTHER).rememberOnce(key, until(66))).toBe(true);
    const seen = await t.platform.db.withTenant(OTHER, (sql) =>
      sql.query<{ tenant_id: string }>('SELECT tenant_id FROM dpop_replay WHERE jti_key = $1', [key]),
    );
    // Row-level security: the other tenant sees its own row only.
    expect(seen.rows).toEqual([{ tenant_id: OTHER }]);
  });

  it("forgets a key within its tenant only: another tenant's same key stays held", async () => {
    const key = fresh();
    expect(await stores.forTenant(DEMO_TENANT).rememberOnce(key, until(66))).toBe(true);
    expect(await stores.forTenant(OTHER).rememberOnce(key, until(66))).toBe(true);
    await stores.forTenant(DEMO_TENANT).forget(key);
    expect(await stores.forTenant(DEMO_TENANT).rememberOnce(key, until(66))).toBe(true);
    expect(await stores.forTenant(OTHER).rememberOnce(key, until(66))).toBe(false);
  });

  it('answers true to exactly one of many concurrent calls', async () => {
    const key = fresh();
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => stores.forTenant(DEMO_TENANT).rememberOnce(key, until(66))),
    );
    expect(answers.filter(Boolean)).toHaveLength(1);
  });

  it('takes over an expired row before the purge, and the purge job removes expired rows of every tenant', async () => {
    const key = fresh();
    const other = fresh();
    expect(await stores.forTenant(DEMO_TENANT).rememberOnce(key, until(66))).toBe(true);
    expect(await stores.forTenant(OTHER).rememberOnce(other, until(66))).toBe(true);
    clock.advance(66);
    // Expired but not purged: a new proof with this key is accepted again, as by the other stores.
    expect(await stores.forTenant(DEMO_TENANT).rememberOnce(key, until(66))).toBe(true);
    expect(await stores.forTenant(DEMO_TENANT).rememberOnce(key, until(66))).toBe(false);

    const before = await t.platform.db.withPlatform((sql) =>
      sql.query<{ n: number }>('SELECT count(*)::int AS n FROM dpop_replay WHERE expires_at <= $1', [clock.now()]),
    );
    expect(before.rows[0]!.n).toBeGreaterThanOrEqual(1);
    const job = purgeDpopReplayJob(stores, t.platform.logger);
    expect(job.name).toBe(PURGE_DPOP_REPLAY_JOB);
    await job.run(new AbortController().signal);
    const left = await t.platform.db.withPlatform((sql) =>
      sql.query<{ tenant_id: string; jti_key: string }>(
        'SELECT tenant_id, jti_key FROM dpop_replay WHERE jti_key = ANY($1)',
        [[key, other]],
      ),
    );
    expect(left.rows).toEqual([{ tenant_id: DEMO_TENANT, jti_key: key }]);
    expect(await stores.purgeExpired()).toBe(0);
  });

  it('registers its purge job with the platform scheduler', async () => {
    expect((await t.platform.jobs.status()).map((j) => j.name)).toContain(PURGE_DPOP_REPLAY_JOB);
  });
});
