import type { AuditEventInput, AuditResult } from '@tessera/platform';
import type { KeyMigrationRecord } from '../domain/key-migration.js';

/** Audit event types of the key migration (000 §6: "key migrations also record audit events"; types not shown). */
export const KEY_MIGRATION_EVENTS = {
  started: 'identity.key_migration.started',
  resumed: 'identity.key_migration.resumed',
  completed: 'identity.key_migration.completed',
  failed: 'identity.key_migration.failed',
  rolledBack: 'identity.key_migration.rolled_back',
} as const;

export type KeyMigrationEvent = (typeof KEY_MIGRATION_EVENTS)[keyof typeof KEY_MIGRATION_EVENTS];

export interface AuditContext {
  principalId?: string | null | undefined;
  correlationId?: string | undefined;
  commandId?: string | undefined;
}

/**
 * One event per transition: the migration id, key versions and counters; never a record's content or id. The runner
 * stages it in the transaction of the transition, so that the two commit together (issue 13 §7).
 */
export function migrationEvent(
  type: KeyMigrationEvent,
  record: KeyMigrationRecord,
  context: AuditContext,
): AuditEventInput {
  const result: AuditResult = type === KEY_MIGRATION_EVENTS.failed ? 'failure' : 'success';
  return {
    tenantId: record.tenantId,
    type,
    commandId: context.commandId,
    principalId: context.principalId ?? null,
    result,
    correlationId: context.correlationId,
    businessIds: { migrationId: record.id },
    details: {
      status: record.status,
      fromDekVersion: record.from.dek,
      toDekVersion: record.to.dek,
      fromHmacVersion: record.from.hmac,
      toHmacVersion: record.to.hmac,
      batchSize: record.batchSize,
      batchesCommitted: record.batchesCommitted,
      recordsProcessed: record.recordsProcessed,
      recordsFailed: record.recordsFailed,
      recordsSkipped: record.recordsSkipped,
      recordsPurged: record.recordsPurged,
      ...(record.error === null ? {} : { error: record.error }),
    },
  };
}
