import type { Database } from '../db/database.js';
import type { MigrationTarget } from '../db/migrate.js';

/**
 * Makes every staging of an audit event fail, as a database lost between a command's write and its commit would
 * (SQLSTATE 57P01, admin shutdown: the platform answers 503). Issue 13 §7: a command whose unit of work is refused
 * must have changed nothing. A trigger on `audit_pending` on both engines; the answer removes it.
 */
export async function refuseAuditStaging(db: Database): Promise<() => Promise<void>> {
  const session = (db as unknown as MigrationTarget).migrationSession.bind(db);
  await session(async (sql) => {
    await sql.query(`CREATE OR REPLACE FUNCTION test_refuse_audit_staging() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'audit staging refused (test)' USING ERRCODE = '57P01'; END $$`);
    await sql.query(`CREATE TRIGGER test_refuse_audit_staging BEFORE INSERT ON audit_pending
      FOR EACH ROW EXECUTE FUNCTION test_refuse_audit_staging()`);
  });
  return () =>
    session(async (sql) => {
      await sql.query('DROP TRIGGER IF EXISTS test_refuse_audit_staging ON audit_pending');
    });
}
