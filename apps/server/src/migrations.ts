import { platformMigrations, type Migration } from '@tessera/platform';
import { identityMigrations } from '@tessera/identity';
import { tokenServiceMigrations } from '@tessera/token-service';
import { bridgeMigrations } from '@tessera/bridge';

/** Every migration of the system, in order: the platform's, then each context's. */
export const allMigrations: Migration[] = [
  ...platformMigrations,
  ...identityMigrations,
  ...tokenServiceMigrations,
  ...bridgeMigrations,
];
