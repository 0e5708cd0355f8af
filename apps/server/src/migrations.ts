import { platformMigrations, type Migration } from '@tessera/platform';
import { identityMigrations } from '@tessera/identity';
import { tokenServiceMigrations } from '@tessera/token-service';
import { bridgeMigrations } from '@tessera/bridge';
import { statusListsMigrations } from '@tessera/status-lists';
import { designsMigrations } from '@tessera/designs';
import { partiesMigrations } from '@tessera/parties';
import { signingMigrations } from '@tessera/signing';
import { issuanceMigrations } from '@tessera/issuance';
import { oid4vciMigrations } from '@tessera/oid4vci-issuer';

/** Every migration of the system, in order: the platform's, then each context's. */
export const allMigrations: Migration[] = [
  ...platformMigrations,
  ...identityMigrations,
  ...tokenServiceMigrations,
  ...bridgeMigrations,
  ...statusListsMigrations,
  ...designsMigrations,
  ...partiesMigrations,
  ...signingMigrations,
  ...issuanceMigrations,
  ...oid4vciMigrations,
];
