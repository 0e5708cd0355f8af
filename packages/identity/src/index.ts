/**
 * The identity context's public API (docs/conventions.md: a context is imported only through its index).
 * README.md describes the data model, the key migration's states and the wiring the composition root needs.
 */
export type {
  Assurance,
  IdentifierHashQuery,
  IdentifierType,
  IdentityRecord,
  IdentityStore,
  TenantUnit,
} from './identity-store.js';
export { PostgresIdentityStore, type PostgresIdentityStoreOptions } from './storage/postgres-identity-store.js';
export { identityMigrations } from './storage/migrations.js';
export { IDENTIFIER_TYPES, EPPN_CLAIM } from './domain/identifiers.js';
export { identityDekAlias, identityHmacAlias } from './domain/key-aliases.js';
export {
  OPEN_MIGRATION_STATUSES,
  type KeyMigrationCounters,
  type KeyMigrationRecord,
  type KeyMigrationStatus,
  type KeyVersions,
} from './domain/key-migration.js';
export {
  DEFAULT_MIGRATION_BATCH_SIZE,
  KeyMigrationRunner,
  type KeyMigrationRunnerOptions,
  type RunOptions,
} from './key-migration/key-migration-runner.js';
export { KEY_MIGRATION_EVENTS } from './key-migration/migration-audit.js';
export {
  startKeyMigration,
  START_KEY_MIGRATION,
  type KeyMigrationCommandInput,
} from './commands/start-key-migration.js';
export { resumeKeyMigration, RESUME_KEY_MIGRATION } from './commands/resume-key-migration.js';
export { rollbackKeyMigration, ROLLBACK_KEY_MIGRATION } from './commands/rollback-key-migration.js';
export {
  exportSharedHmacKey,
  exportSharedHmacKeyCommand,
  EXPORT_SHARED_HMAC_KEY,
  LOOKUP_HASH_RULE,
  type ExportSharedHmacKeyDeps,
  type SharedHmacKey,
} from './commands/export-shared-hmac-key.js';
export {
  applyBindingRetention,
  bindingRetentionJob,
  BINDING_RETENTION_JOB,
  BINDING_RETENTION_INTERVAL_SECONDS,
  DEFAULT_INACTIVE_DAYS,
  DEFAULT_SOFT_DELETE_DAYS,
  type BindingRetentionJobOptions,
  type BindingRetentionPolicy,
} from './jobs/binding-retention-job.js';
export { IdentityConfigSchema, IDENTITY_ENV, type IdentityConfig } from './config.js';
