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
