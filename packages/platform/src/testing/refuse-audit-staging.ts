import { createHash } from 'node:crypto';
import type { Database } from '../db/database.js';
import type { MigrationTarget } from '../db/migrate.js';

/** Which staged events to refuse: one command's (by id), those containing a fragment (jsonb `@>`), or all. */
export type StagingMatch = string | { commandId: string } | { type: string } | undefined;

/**
 * Makes the database refuse to stage audit events (audit-pending.ts), as when it goes away at the moment a unit of
 * work stages its event: a trigger on `audit_pending` raises SQLSTATE 57P01 (admin_shutdown, which the adapters map
 * to 503) for the events `match` names: a command id, a fragment the staged event contains (an event type a context
 * writes itself), or every event when absent. Issue 13 §7: the unit of work's change, made just before in the same
 * transaction, must then be rolled back with it. Answers the function that lifts the refusal. Runs as the login role
 * (the owner of the schema), on either engine.
 */
export async function refuseAuditStaging(db: Database, match?: StagingMatch): Promise<() => Promise<void>> {
  const target = db as unknown as MigrationTarget;
  const fragment = typeof match === 'string' ? { commandId: match } : match;
  const json = fragment === undefined ? '*' : JSON.stringify(fragment);
  const fn = `tessera_test_refuse_staging_${createHash('sha256').update(json).digest('hex').slice(0, 12)}`;
  const condition = fragment === undefined ? 'TRUE' : `NEW.event @> '${json.replaceAll("'", "''")}'::jsonb`;
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
