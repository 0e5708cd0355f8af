import { randomUUID } from 'node:crypto';
import { createPlatform, type Command } from '@tessera/platform';
import {
  KeyMigrationRunner,
  resumeKeyMigration,
  rollbackKeyMigration,
  startKeyMigration,
  type KeyMigrationCommandInput,
} from '@tessera/identity';
import type { ServerConfig } from '../config.js';
import { allMigrations } from '../migrations.js';
import { cliOperator } from './operator.js';

/**
 * `npm run identity-keys -- start|resume|rollback --tenant <id>` (issue 5 §6): rotates a tenant's identity
 * data-encryption and HMAC keys by re-encrypting and re-indexing every record in batches, through the identity
 * context's commands. Ctrl-C stops between batches; `resume` continues where it stopped.
 */
export async function runIdentityKeysCommand(
  config: ServerConfig,
  action: string | undefined,
  tenants: string[] | undefined,
): Promise<number> {
  if (!action || !['start', 'resume', 'rollback'].includes(action) || !tenants || tenants.length !== 1) {
    console.error('usage: npm run identity-keys -- start|resume|rollback --tenant <id>');
    return 2;
  }
  const platform = await createPlatform({ ...config, logging: { level: 'warn' } }, { migrations: allMigrations });
  const abort = new AbortController();
  process.once('SIGINT', () => abort.abort());
  try {
    const runner = new KeyMigrationRunner({
      db: platform.db,
      keys: platform.keys,
      audit: platform.audit,
      clock: platform.clock,
      serviceClaim: config.deployment.serviceClaim,
      batchSize: config.identity.migration.batchSize,
      softDeleteDays: config.identity.retention.softDeleteDays,
      logger: platform.logger,
    });
    const make =
      action === 'start' ? startKeyMigration : action === 'resume' ? resumeKeyMigration : rollbackKeyMigration;
    const command = make(runner) as unknown as Command<KeyMigrationCommandInput, { status: string }>;
    const ctx = {
      tenantId: tenants[0]!,
      principal: cliOperator(config),
      correlationId: randomUUID(),
      trace: null,
      log: platform.logger,
    };
    const record = await platform.commands.execute(command, ctx, { signal: abort.signal });
    console.log(JSON.stringify(record, null, 2));
    return record.status === 'COMPLETED' || record.status === 'ROLLED_BACK' ? 0 : 1;
  } finally {
    await platform.close();
  }
}
