import { defineCommand, type Command } from '@tessera/platform';
import type { KeyMigrationRecord } from '../domain/key-migration.js';
import type { KeyMigrationRunner } from '../key-migration/key-migration-runner.js';

export const ROLLBACK_KEY_MIGRATION = 'identity.keys.rollback-migration';

/** Rolls the tenant's open key migration back: the records keep (and are read under) the old keys. */
export function rollbackKeyMigration(runner: KeyMigrationRunner): Command<Record<string, never>, KeyMigrationRecord> {
  return defineCommand({
    id: ROLLBACK_KEY_MIGRATION,
    access: 'admin',
    businessIds: (_input, output): Record<string, string> => (output ? { migrationId: output.id } : {}),
    run: (ctx) =>
      runner.rollback(ctx.tenantId, {
        principalId: ctx.principal?.id ?? null,
        correlationId: ctx.correlationId,
        commandId: ROLLBACK_KEY_MIGRATION,
      }),
  });
}
