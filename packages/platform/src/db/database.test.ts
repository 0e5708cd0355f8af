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
        t.db.withTenant('alpha', (sql) => sql.query(`INSERT INTO audit_heads (tenant_id, seq, hash) VALUES ('beta', 3, 'x')`)),
      ).rejects.toMatchObject({ code: 'not_found' });
      const all = await t.db.withPlatform((sql) => sql.query(`SELECT tenant_id FROM audit_heads ORDER BY tenant_id`));
      expect(all.rows.map((r) => r.tenant_id)).toEqual(['alpha', 'beta']);
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
