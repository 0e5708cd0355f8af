import { sqlMigration, type Migration } from '@tessera/platform';

/** The signing context's schema, applied after the platform's. */
export const signingMigrations: Migration[] = [
  sqlMigration('signing/0001_signing', new URL('./migrations/0001_signing.sql', import.meta.url)),
];
