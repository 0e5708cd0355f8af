import { sqlMigration, type Migration } from '@tessera/platform';

/** The OpenID4VCI issuer's schema, applied after the platform's. */
export const oid4vciMigrations: Migration[] = [
  sqlMigration('oid4vci/0001_oid4vci', new URL('./migrations/0001_oid4vci.sql', import.meta.url)),
  sqlMigration('oid4vci/0002_drop_dpop_replay', new URL('./migrations/0002_drop_dpop_replay.sql', import.meta.url)),
];
