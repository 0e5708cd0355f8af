import { sqlMigration, type Migration } from '@tessera/platform';

/** The identity context's schema, applied after the platform's (which holds `kms_symmetric_keys`). */
export const identityMigrations: Migration[] = [
  sqlMigration('identity/0001_identity', new URL('./migrations/0001_identity.sql', import.meta.url)),
];
