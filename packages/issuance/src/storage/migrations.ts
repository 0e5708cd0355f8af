import { sqlMigration, type Migration } from '@tessera/platform';

/** The issuance pipeline's schema, applied after the platform's. */
export const issuanceMigrations: Migration[] = [
  sqlMigration('issuance/0001_issuance', new URL('./migrations/0001_issuance.sql', import.meta.url)),
];
