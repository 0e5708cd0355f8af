import { createHash } from 'node:crypto';
import type { Database, MigrationTarget } from '@tessera/platform';

/**
 * Makes the database refuse to stage the audit events that contain `match` (audit-pending.ts; a jsonb containment on
 * the staged event: a command id, or an event type the bridge writes itself), as when it goes away at the moment a
 * unit of work stages its event: a trigger on `audit_pending` raises SQLSTATE 57P01 (admin_shutdown, which the
 * adapters map to 503). Issue 13 §7: the change made just before in the same transaction must roll back with it.
 * Answers the function that lifts the refusal. Runs as the login role (the owner of the schema), on either engine.
 */
export async function refuseStaging(
  db: Database,
  match: { commandId: string } | { type: string },
): Promise<() => Promise<void>> {
  const target = db as unknown as MigrationTarget;
  const json = JSON.stringify(match);
  const fn = `tessera_test_refuse_${createHash('sha256').update(json).digest('hex').slice(0, 12)}`;
  const literal = `'${json.replaceAll("'", "''")}'::jsonb`;
  await target.migrationSession((sql) =>
    sql.exec(`
      CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.event @> ${literal} THEN
          RAISE EXCEPTION 'audit staging refused for the test' USING ERRCODE = 'admin_shutdown';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER ${fn} BEFORE INSERT ON audit_pending FOR EACH ROW EXECUTE FUNCTION ${fn}();`),
  );
  return () =>
    target.migrationSession((sql) => sql.exec(`DROP TRIGGER IF EXISTS ${fn} ON audit_pending; DROP FUNCTION ${fn}();`));
}
