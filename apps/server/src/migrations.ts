import { platformMigrations, type Migration } from '@tessera/platform';

/** Every migration of the system, in order: the platform's, then each context's. */
export const allMigrations: Migration[] = [...platformMigrations];
