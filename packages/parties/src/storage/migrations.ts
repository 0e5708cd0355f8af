import { sqlMigration, type Migration } from '@tessera/platform';

/** The party context's schema, applied after the platform's. */
export const partiesMigrations: Migration[] = [
  sqlMigration('parties/0001_parties', new URL('./migrations/0001_parties.sql', import.meta.url)),
  sqlMigration('parties/0002_search_words', new URL('./migrations/0002_search_words.sql', import.meta.url)),
  sqlMigration('parties/0003_search_words_order', new URL('./migrations/0003_search_words_order.sql', import.meta.url)),
  sqlMigration(
    'parties/0004_search_candidates_sorted',
    new URL('./migrations/0004_search_candidates_sorted.sql', import.meta.url),
  ),
];
