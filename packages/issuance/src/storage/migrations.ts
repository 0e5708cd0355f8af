import { sqlMigration, type Migration } from '@tessera/platform';

/** The issuance pipeline's schema, applied after the platform's. */
export const issuanceMigrations: Migration[] = [
  sqlMigration('issuance/0001_issuance', new URL('./migrations/0001_issuance.sql', import.meta.url)),
  sqlMigration(
    'issuance/0002_spent_callback_tokens',
    new URL('./migrations/0002_spent_callback_tokens.sql', import.meta.url),
  ),
  sqlMigration(
    'issuance/0003_connector_invocations',
    new URL('./migrations/0003_connector_invocations.sql', import.meta.url),
  ),
  sqlMigration(
    'issuance/0004_session_required_paths',
    new URL('./migrations/0004_session_required_paths.sql', import.meta.url),
  ),
];
