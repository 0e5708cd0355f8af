import { defineCommand, type Command } from '@tessera/platform';
import type { KeyMigrationRecord } from '../domain/key-migration.js';
import type { KeyMigrationRunner } from '../key-migration/key-migration-runner.js';
import type { KeyMigrationCommandInput } from './start-key-migration.js';

export const RESUME_KEY_MIGRATION = 'identity.keys.resume-migration';

/** Continues the tenant's open key migration (IN_PROGRESS after a crash or a stop, or FAILED) from its cursor. */
export function resumeKeyMigration(runner: KeyMigrationRunner): Command<KeyMigrationCommandInput, KeyMigrationRecord> {
  return defineCommand({
    id: RESUME_KEY_MIGRATION,
    access: 'admin',
    businessIds: (_input, output): Record<string, string> => (output ? { migrationId: output.id } : {}),
    run: (ctx, input) =>
      runner.resume(ctx.tenantId, {
        signal: input.signal,
        principalId: ctx.principal?.id ?? null,
        correlationId: ctx.correlationId,
        commandId: RESUME_KEY_MIGRATION,
      }),
  });
}
