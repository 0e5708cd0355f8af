import { sqlMigration, type Migration } from '@tessera/platform';

export const tokenServiceMigrations: Migration[] = [
  sqlMigration(
    'token-service/0001_token_service',
    new URL('./storage/migrations/0001_token_service.sql', import.meta.url),
  ),
  sqlMigration('token-service/0002_dpop', new URL('./storage/migrations/0002_dpop.sql', import.meta.url)),
  sqlMigration(
    'token-service/0003_sealed_personal_data',
    new URL('./storage/migrations/0003_sealed_personal_data.sql', import.meta.url),
  ),
  sqlMigration(
    'token-service/0004_credential_grants',
    new URL('./storage/migrations/0004_credential_grants.sql', import.meta.url),
  ),
  sqlMigration(
    'token-service/0005_refresh_successor',
    new URL('./storage/migrations/0005_refresh_successor.sql', import.meta.url),
  ),
  sqlMigration(
    'token-service/0006_credential_authorizations',
    new URL('./storage/migrations/0006_credential_authorizations.sql', import.meta.url),
  ),
  sqlMigration(
    'token-service/0007_drop_dpop_replay',
    new URL('./storage/migrations/0007_drop_dpop_replay.sql', import.meta.url),
  ),
];
