import { describe, it, expect } from 'vitest';
import { DATABASE_KINDS, openTestDatabase, seedTenants } from '../testing/databases.js';

describe.each(DATABASE_KINDS)('database (%s)', (kind) => {
  it('isolates tenants through row-level security', async () => {
    const t = await openTestDatabase(kind);
    try {
      await seedTenants(t.db, 'alpha', 'beta');
      await t.db.withTenant('alpha', (sql) => sql.query(`INSERT INTO audit_heads (seq, hash) VALUES (1, 'a')`));
      await t.db.withTenant('beta', (sql) => sql.query(`INSERT INTO audit_heads (seq, hash) VALUES (2, 'b')`));
      const a = await t.db.withTenant('alpha', (sql) => sql.query(`SELECT * FROM audit_heads`));
      expect(a.rows).toEqual([{ tenant_id: 'alpha', seq: 1, hash: 'a' }]);
      await expect(
        t.db.withTenant('alpha', (sql) =>
          sql.query(`INSERT INTO audit_heads (tenant_id, seq, hash) VALUES ('beta', 3, 'x')`),
        ),
      ).rejects.toMatchObject({ code: 'not_found' });
      const all = await t.db.withPlatform((sql) => sql.query(`SELECT tenant_id FROM audit_heads ORDER BY tenant_id`));
      expect(all.rows.map((r) => r.tenant_id)).toEqual(['alpha', 'beta']);
    } finally {
      await t.close();
    }
  });
});

describe.each(DATABASE_KINDS)('tenant session units (%s)', (kind) => {
  it('scope each statement to the tenant of the unit, however connections are reused between tenants', async () => {
    const t = await openTestDatabase(kind);
    try {
      await seedTenants(t.db, 'alpha', 'beta');
      await t.db.withTenant('alpha', (sql) => sql.query(`INSERT INTO audit_heads (seq, hash) VALUES (1, 'a')`));
      await t.db.withTenant('beta', (sql) => sql.query(`INSERT INTO audit_heads (seq, hash) VALUES (2, 'b')`));
      const read = (tenant: string) =>
        t.db.withTenantSession(
          tenant,
          async (sql) => (await sql.query<{ tenant_id: string }>(`SELECT tenant_id FROM audit_heads`)).rows,
        );
      // Interleaved units of both tenants, many at once, over a pool smaller than the number of units.
      const tenants = Array.from({ length: 60 }, (_, i) => (i % 3 === 0 ? 'beta' : 'alpha'));
      const results = await Promise.all(tenants.map((tenant) => read(tenant)));
      results.forEach((rows, i) => expect(rows).toEqual([{ tenant_id: tenants[i] }]));
      // Transactions and platform units on the same connections are not affected by the session setting.
      expect((await t.db.withTenant('beta', (sql) => sql.query(`SELECT tenant_id FROM audit_heads`))).rows).toEqual([
        { tenant_id: 'beta' },
      ]);
      const all = await t.db.withPlatform((sql) => sql.query(`SELECT tenant_id FROM audit_heads ORDER BY tenant_id`));
      expect(all.rows.map((r) => r.tenant_id)).toEqual(['alpha', 'beta']);
      // Writes land in the session's tenant whatever the statement says.
      await expect(
        t.db.withTenantSession('alpha', (sql) =>
          sql.query(`INSERT INTO audit_heads (tenant_id, seq, hash) VALUES ('beta', 3, 'x')`),
        ),
      ).rejects.toMatchObject({ code: 'not_found' });
      expect(await read('alpha')).toEqual([{ tenant_id: 'alpha' }]);
      // A failing statement leaves the connection usable and still scoped.
      await expect(t.db.withTenantSession('beta', (sql) => sql.query(`SELECT 1/0`))).rejects.toBeTruthy();
      expect(await read('beta')).toEqual([{ tenant_id: 'beta' }]);
    } finally {
      await t.close();
    }
  });
});

describe.each(DATABASE_KINDS)('units of work (%s)', (kind) => {
  it('commit together, and a unit whose failed statement was caught is refused, with nothing of it written', async () => {
    const t = await openTestDatabase(kind);
    try {
      await seedTenants(t.db, 'alpha');
      await t.db.withTenant('alpha', async (sql) => {
        await sql.query(`INSERT INTO audit_heads (seq, hash) VALUES ($1, $2)`, [1, 'a']);
        await sql.query(`UPDATE audit_heads SET seq = $1`, [2]);
      });
      const swallowed = t.db.withTenant('alpha', async (sql) => {
        await sql.query(`UPDATE audit_heads SET seq = $1`, [3]);
        await sql.query(`SELECT 1/0`).catch(() => undefined);
        return 'done';
      });
      await expect(swallowed).rejects.toThrow(/rolled back|aborted/i);
      const after = await t.db.withTenant('alpha', (sql) => sql.query(`SELECT seq, hash FROM audit_heads`));
      expect(after.rows).toEqual([{ seq: 2, hash: 'a' }]);
      // A unit that throws rolls back, and the next one starts clean.
      await expect(
        t.db.withTenant('alpha', async (sql) => {
          await sql.query(`UPDATE audit_heads SET seq = $1`, [4]);
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      const still = await t.db.withTenantSession('alpha', (sql) => sql.query(`SELECT seq FROM audit_heads`));
      expect(Number(still.rows[0]!.seq)).toBe(2);
    } finally {
      await t.close();
    }
  });
});

describe('advisory lock keys', () => {
  it('fit the signed bigint range for any name (postgres)', async () => {
    const t = await openTestDatabase('postgres');
    try {
      // These names hash above 2^63 as unsigned values.
      for (const name of ['job:session-cleanup', 'job:flaky', 'job:long', 'job:looped', 'job:retries']) {
        const outcome = await t.db.withAdvisoryLock(name, async () => 'ran');
        expect(outcome).toEqual({ ran: true, value: 'ran' });
      }
    } finally {
      await t.close();
    }
  });
});
