import Type, { type Static } from 'typebox';
import type { EnvBinding } from '@tessera/platform';
import { DEFAULT_INACTIVE_DAYS, DEFAULT_SOFT_DELETE_DAYS } from './jobs/binding-retention-job.js';
import { DEFAULT_MIGRATION_BATCH_SIZE } from './key-migration/key-migration-runner.js';

/** The `identity` section of the configuration (added to the server schema by the composition root). */
export const IdentityConfigSchema = Type.Object(
  {
    retention: Type.Object(
      {
        /** 000 §8: a binding unused for this many days is soft-deleted (RETENTION_INACTIVE_DAYS). */
        inactiveDays: Type.Integer({ minimum: 1, default: DEFAULT_INACTIVE_DAYS }),
        /** 000 §8: a soft-deleted binding is hard-deleted after this many days (RETENTION_SOFT_DELETE_DAYS). */
        softDeleteDays: Type.Integer({ minimum: 0, default: DEFAULT_SOFT_DELETE_DAYS }),
      },
      { default: {}, additionalProperties: false },
    ),
    migration: Type.Object(
      {
        /** Identities re-encrypted per transaction by a key migration. */
        batchSize: Type.Integer({ minimum: 1, maximum: 10_000, default: DEFAULT_MIGRATION_BATCH_SIZE }),
      },
      { default: {}, additionalProperties: false },
    ),
  },
  { default: {}, additionalProperties: false },
);

export type IdentityConfig = Static<typeof IdentityConfigSchema>;

/** The documented environment variables of this section (000 §8), beside the platform's PLATFORM_ENV. */
export const IDENTITY_ENV: EnvBinding[] = [
  { env: 'RETENTION_INACTIVE_DAYS', key: 'identity.retention.inactiveDays' },
  { env: 'RETENTION_SOFT_DELETE_DAYS', key: 'identity.retention.softDeleteDays' },
];
