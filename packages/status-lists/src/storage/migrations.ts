import { sqlMigration, type Migration } from '@tessera/platform';

/** The status-list context's schema, applied after the platform's. */
export const statusListsMigrations: Migration[] = [
  sqlMigration('status-lists/0001_status_lists', new URL('./migrations/0001_status_lists.sql', import.meta.url)),
];
