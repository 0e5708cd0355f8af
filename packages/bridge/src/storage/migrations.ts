import { sqlMigration, type Migration } from '@tessera/platform';

/** The bridge's migrations, applied after the platform's (the composition root lists them in order). */
export const bridgeMigrations: Migration[] = [
  sqlMigration('bridge/0001_bridge', new URL('./migrations/0001_bridge.sql', import.meta.url)),
  sqlMigration(
    'bridge/0002_idv_reconciliations',
    new URL('./migrations/0002_idv_reconciliations.sql', import.meta.url),
  ),
  sqlMigration('bridge/0003_reconciliation', new URL('./migrations/0003_reconciliation.sql', import.meta.url)),
  sqlMigration('bridge/0004_rejected_responses', new URL('./migrations/0004_rejected_responses.sql', import.meta.url)),
  sqlMigration('bridge/0005_match_confirmation', new URL('./migrations/0005_match_confirmation.sql', import.meta.url)),
  sqlMigration(
    'bridge/0006_drop_reconciliation_dpop_replay',
    new URL('./migrations/0006_drop_reconciliation_dpop_replay.sql', import.meta.url),
  ),
];
