import { sqlMigration, type Migration } from '@tessera/platform';

/** The design registry's schema, applied after the platform's. */
export const designsMigrations: Migration[] = [
  sqlMigration('designs/0001_designs', new URL('./migrations/0001_designs.sql', import.meta.url)),
  sqlMigration(
    'designs/0002_change_notifications',
    new URL('./migrations/0002_change_notifications.sql', import.meta.url),
  ),
];
