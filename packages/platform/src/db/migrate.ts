import { readFileSync } from 'node:fs';
import type { Sql } from './database.js';

/** A versioned migration: ids are applied once, in the order the composition root lists them. */
export interface Migration {
  id: string;
  sql: string;
}

export const sqlMigration = (id: string, file: URL): Migration => ({ id, sql: readFileSync(file, 'utf8') });

export const platformMigrations: Migration[] = [
  sqlMigration('platform/0001_core', new URL('./migrations/0001_core.sql', import.meta.url)),
  sqlMigration('platform/0002_symmetric_keys', new URL('./migrations/0002_symmetric_keys.sql', import.meta.url)),
  sqlMigration(
    'platform/0003_indexable_tenant_policy',
    new URL('./migrations/0003_indexable_tenant_policy.sql', import.meta.url),
  ),
  sqlMigration('platform/0004_outbound', new URL('./migrations/0004_outbound.sql', import.meta.url)),
  sqlMigration('platform/0005_audit_pending', new URL('./migrations/0005_audit_pending.sql', import.meta.url)),
  sqlMigration('platform/0006_dpop_replay', new URL('./migrations/0006_dpop_replay.sql', import.meta.url)),
  sqlMigration(
    'platform/0007_inlinable_tenant_policy',
    new URL('./migrations/0007_inlinable_tenant_policy.sql', import.meta.url),
  ),
  sqlMigration(
    'platform/event-forwarding/0001',
    new URL('../event-forwarding/migrations/0001_event_forwarding.sql', import.meta.url),
  ),
  sqlMigration(
    'platform/event-forwarding/0002',
    new URL('../event-forwarding/migrations/0002_syslog_tls.sql', import.meta.url),
  ),
];

/** What the migration runner needs: a session as the login role (the owner of the schema). */
export interface MigrationTarget {
  migrationSession<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
}

const LOCK = "hashtext('tessera:migrations')";

/**
 * Applies the pending migrations, each in its own transaction, under a session advisory lock so that replicas
 * starting together apply each migration once. Then refreshes the runtime role's grants. Returns the ids applied.
 */
export async function migrate(target: MigrationTarget, migrations: Migration[]): Promise<string[]> {
  return target.migrationSession(async (sql) => {
    await sql.query(`SELECT pg_advisory_lock(${LOCK})`);
    try {
      await sql.query(
        `CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const done = new Set((await sql.query<{ id: string }>('SELECT id FROM schema_migrations')).rows.map((r) => r.id));
      const applied: string[] = [];
      for (const m of migrations) {
        if (done.has(m.id)) continue;
        await sql.query('BEGIN');
        try {
          await sql.exec(m.sql);
          await sql.query('INSERT INTO schema_migrations (id) VALUES ($1)', [m.id]);
          await sql.query('COMMIT');
        } catch (error) {
          await sql.query('ROLLBACK');
          throw new Error(`migration ${m.id} failed: ${(error as Error).message}`, { cause: error });
        }
        applied.push(m.id);
      }
      await sql.query('SELECT tessera_apply_grants()');
      return applied;
    } finally {
      await sql.query(`SELECT pg_advisory_unlock(${LOCK})`);
    }
  });
}
