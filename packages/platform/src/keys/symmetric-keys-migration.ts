import { sqlMigration, type Migration } from '../db/migrate.js';

/**
 * The schema of the symmetric keys (db/migrations/0002_symmetric_keys.sql), registered in `platformMigrations` by
 * the composition root's owner under this id. Until then, and in tests, `withSymmetricKeysMigration` inserts it into a
 * migration list that lacks it (a list that has it is returned as is, so it is never applied twice).
 */
export const SYMMETRIC_KEYS_MIGRATION_ID = 'platform/0002_symmetric_keys';

export const symmetricKeysMigration: Migration = sqlMigration(
  SYMMETRIC_KEYS_MIGRATION_ID,
  new URL('../db/migrations/0002_symmetric_keys.sql', import.meta.url),
);

export function withSymmetricKeysMigration(migrations: Migration[]): Migration[] {
  if (migrations.some((m) => m.id === SYMMETRIC_KEYS_MIGRATION_ID)) return migrations;
  // Right after the platform's own migrations, before any context's.
  const at = migrations.findLastIndex((m) => m.id.startsWith('platform/')) + 1;
  return [...migrations.slice(0, at), symmetricKeysMigration, ...migrations.slice(at)];
}
