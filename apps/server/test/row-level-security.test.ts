import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, createTestPlatform, type TestPlatform } from '@tessera/platform/testing';
import { allMigrations } from '../src/migrations.js';

/**
 * Issue 13 §10: the tenant is applied in one place, row-level security, so every table that holds a `tenant_id`
 * must have it enabled **and forced** (the table owner is held to it too) with a policy, whoever wrote its migration.
 * Read from the catalogue after every migration of every context, as Hydra's persister test checks each store.
 */
describe.each(DATABASE_KINDS)('row-level security on every tenant table (%s)', (kind) => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await createTestPlatform(kind, { migrations: allMigrations });
  });
  afterAll(async () => t?.close());

  it('every table with a tenant_id column has row-level security enabled and forced, with a policy', async () => {
    const rows = await t.platform.db.withPlatform((sql) =>
      sql.query<{ table: string; enabled: boolean; forced: boolean; policies: number }>(
        `SELECT c.relname AS table, c.relrowsecurity AS enabled, c.relforcerowsecurity AS forced,
                (SELECT count(*)::int FROM pg_policy p WHERE p.polrelid = c.oid) AS policies
           FROM pg_class c
           JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
            AND EXISTS (SELECT 1 FROM pg_attribute a
                         WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped)
          ORDER BY c.relname`,
      ),
    );
    const tables = rows.rows;
    // The check covers the contexts' tables, not only the platform's.
    expect(tables.length).toBeGreaterThan(15);
    const unprotected = tables.filter((r) => !r.enabled || !r.forced || r.policies === 0).map((r) => r.table);
    expect(unprotected).toEqual([]);
  });
});
