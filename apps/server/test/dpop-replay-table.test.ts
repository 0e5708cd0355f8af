import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, type MigrationTarget } from '@tessera/platform';
import { DATABASE_KINDS, openTestDatabase, type TestDatabase } from '@tessera/platform/testing';
import { allMigrations } from '../src/migrations.js';

/** The migrations that replace the per-context DPoP replay tables with the platform's one (issue 13 §8). */
const ONE_TABLE = new Set([
  'platform/0006_dpop_replay',
  'token-service/0007_drop_dpop_replay',
  'bridge/0006_drop_reconciliation_dpop_replay',
  'oid4vci/0002_drop_dpop_replay',
]);
const OLD_TABLES = ['oauth_dpop_replay', 'reconciliation_dpop_replay', 'oid4vci_dpop_replay'];

/** A deployment migrated before the change is upgraded: one `dpop_replay` table, the three old ones gone. */
describe.each(DATABASE_KINDS)('one DPoP replay table after migration (%s)', (kind) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(
      kind,
      allMigrations.filter((m) => !ONE_TABLE.has(m.id)),
    );
  });
  afterAll(async () => t?.close());

  const tables = () =>
    t.db.withPlatform(async (sql) => {
      const found: Record<string, boolean> = {};
      for (const name of [...OLD_TABLES, 'dpop_replay']) {
        const r = await sql.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [name]);
        found[name] = r.rows[0]!.t !== null;
      }
      return found;
    });

  it('drops the per-context tables and creates dpop_replay', async () => {
    expect(await tables()).toEqual({
      oauth_dpop_replay: true,
      reconciliation_dpop_replay: true,
      oid4vci_dpop_replay: true,
      dpop_replay: false,
    });
    // A row of a proof seen before the upgrade does not stop the migration.
    await t.db.withPlatform((sql) =>
      sql.query(`INSERT INTO oauth_dpop_replay (jti_key, expires_at) VALUES ('k', now() + interval '1 minute')`),
    );
    // The opened database is a migration target (both engines); its own migrate() keeps the list it was opened with.
    const target = t.db as unknown as MigrationTarget;
    expect((await migrate(target, allMigrations)).sort()).toEqual([...ONE_TABLE].sort());
    expect(await tables()).toEqual({
      oauth_dpop_replay: false,
      reconciliation_dpop_replay: false,
      oid4vci_dpop_replay: false,
      dpop_replay: true,
    });
  });
});
