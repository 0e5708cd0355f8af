import { createHash } from 'node:crypto';
import type { Database } from '../db/database.js';
import type { MigrationTarget } from '../db/migrate.js';

/**
 * Makes the database refuse to stage the audit events of one command (audit-pending.ts), as when it goes away at
 * the moment a unit of work stages its event: a trigger on `audit_pending` raises SQLSTATE 57P01 (admin_shutdown,
 * which the adapters map to 503) for an event of `commandId`, or for every event when no command is named. Issue 13 §7: the unit of work's change, made just
 * before in the same transaction, must then be rolled back with it. Answers the function that lifts the refusal.
 * Runs as the login role (the owner of the schema), on either engine.
 */
export async function refuseAuditStaging(db: Database, commandId?: string): Promise<() => Promise<void>> {
  const target = db as unknown as MigrationTarget;
  const suffix = createHash('sha256')
    .update(commandId ?? '*')
    .digest('hex')
    .slice(0, 12);
  const fn = `tessera_test_refuse_staging_${suffix}`;
  const condition = commandId === undefined ? 'TRUE' : `NEW.event->>'commandId' = '${commandId.replaceAll("'", "''")}'`;
  await target.migrationSession((sql) =>
    sql.exec(`
      CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF ${condition} THEN
          RAISE EXCEPTION 'audit staging refused for the test' USING ERRCODE = 'admin_shutdown';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER ${fn} BEFORE INSERT ON audit_pending FOR EACH ROW EXECUTE FUNCTION ${fn}();`),
  );
  return () =>
    target.migrationSession((sql) => sql.exec(`DROP TRIGGER IF EXISTS ${fn} ON audit_pending; DROP FUNCTION ${fn}();`));
}
