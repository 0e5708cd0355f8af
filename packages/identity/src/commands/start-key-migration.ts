import { defineCommand, type Command } from '@tessera/platform';
import type { KeyMigrationRecord } from '../domain/key-migration.js';
import type { KeyMigrationRunner } from '../key-migration/key-migration-runner.js';

export interface KeyMigrationCommandInput {
  /** Stops the runner between batches (e.g. on SIGINT in the command line); the migration stays resumable. */
  signal?: AbortSignal;
}

export const START_KEY_MIGRATION = 'identity.keys.start-migration';

/**
 * Issue 5 §6: "a command starts it". Opens a key migration of the tenant's identity keys and runs it until it
 * completes, fails, or is stopped through the signal. Platform administrators only (`admin`).
 */
export function startKeyMigration(runner: KeyMigrationRunner): Command<KeyMigrationCommandInput, KeyMigrationRecord> {
  return defineCommand({
    id: START_KEY_MIGRATION,
    access: 'admin',
    businessIds: (_input, output): Record<string, string> => (output ? { migrationId: output.id } : {}),
    run: (ctx, input) =>
      runner.start(ctx.tenantId, {
        signal: input.signal,
        principalId: ctx.principal?.id ?? null,
        correlationId: ctx.correlationId,
        commandId: START_KEY_MIGRATION,
      }),
  });
}
