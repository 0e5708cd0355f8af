/**
 * Seeds persons for the party-person-search benchmark in one PostgreSQL database, kept between runs (seeding a
 * million persons and their full-text index takes minutes): the database is created when missing, migrated, and
 * filled up to the asked count with `INSERT … SELECT generate_series` in batches, as the login role (no row-level
 * security), into the demo tenant. Run it alone with
 *
 *   npx tsx packages/parties/bench/seed-persons.ts [count] [database-url]
 *
 * Names are made of syllables: 400 given names and 8,000 family names, so that a family name matches about 125 of
 * a million persons and a given name about 2,500. `DROP DATABASE tessera_bench_parties` starts over.
 */
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { openDatabase, platformMigrations, withSymmetricKeysMigration, type MigrationTarget } from '@tessera/platform';
import { identityMigrations } from '@tessera/identity';
import { partiesMigrations } from '../src/index.js';

export const BENCH_PARTIES_DATABASE = 'tessera_bench_parties';
export const BENCH_TENANT = 'demo';
export const SEED_ORIGIN = 'bench-seed';
const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ra',
  'ne',
  'to',
  'su',
  'vi',
  'da',
  'pe',
  'gor',
  'lin',
  'ber',
  'han',
  'mar',
  'wel',
  'sto',
  'ven',
  'ril',
  'dun',
];
const BATCH = 100_000;

/** The syllables of family name number `i` (0 ≤ i < 8000), as the seed's SQL builds them. */
export function familyName(i: number): string {
  const s = SYLLABLES;
  return `${s[i % 20]}${s[Math.floor(i / 20) % 20]}${s[Math.floor(i / 400) % 20]}`;
}

export const seedMigrations = () => [
  ...withSymmetricKeysMigration(platformMigrations),
  ...identityMigrations,
  ...partiesMigrations,
];

export function benchDatabaseUrl(
  adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
): string {
  const u = new URL(adminUrl);
  u.pathname = `/${BENCH_PARTIES_DATABASE}`;
  return u.toString();
}

async function ensureDatabase(url: string): Promise<void> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [BENCH_PARTIES_DATABASE]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${BENCH_PARTIES_DATABASE}`);
  } finally {
    await client.end();
  }
}

/** Makes sure the database holds at least `count` seeded persons; answers how many it holds. */
export async function seedPersons(url: string, count: number, log: (line: string) => void = () => {}): Promise<number> {
  await ensureDatabase(url);
  // Migrating a seeded database backfills the search words of every party: more than the default statement timeout.
  const db = await openDatabase({ url, migrations: seedMigrations(), maxPoolSize: 2, statementTimeoutSeconds: 3600 });
  try {
    return await (db as unknown as MigrationTarget).migrationSession(async (sql) => {
      await sql.query(`INSERT INTO tenants (id, display_name) VALUES ($1, 'Demo tenant') ON CONFLICT (id) DO NOTHING`, [
        BENCH_TENANT,
      ]);
      const have = Number(
        (
          await sql.query<{ n: string }>(
            `SELECT count(*) AS n FROM parties WHERE tenant_id = $1 AND origin = $2 AND party_type = 'PERSON'`,
            [BENCH_TENANT, SEED_ORIGIN],
          )
        ).rows[0]!.n,
      );
      for (let from = have; from < count; from += BATCH) {
        const to = Math.min(count, from + BATCH);
        const started = Date.now();
        await sql.query(
          `WITH inserted AS (
           INSERT INTO parties (tenant_id, id, party_type, display_name, origin, attributes, search_text, created_at,
             updated_at)
           SELECT $1, gen_random_uuid(), 'PERSON', initcap(g) || ' ' || initcap(f), $2,
                  jsonb_build_object('givenName', initcap(g), 'familyName', initcap(f)), g || ' ' || f, now(), now()
             FROM generate_series($3::int, $4::int - 1) AS n,
                  LATERAL (SELECT $5::text[] AS s, ((n::bigint * 7919) % 8000)::int AS fi) AS k,
                  LATERAL (SELECT s[1 + n % 20] || s[1 + (n / 20) % 20] AS g,
                                  s[1 + fi % 20] || s[1 + (fi / 20) % 20] || s[1 + (fi / 400) % 20] AS f) AS names
           RETURNING tenant_id, id, search_text, display_name)
           INSERT INTO party_search_words (tenant_id, word, party_id, display_name)
           SELECT DISTINCT i.tenant_id, w, i.id, i.display_name
             FROM inserted i, unnest(string_to_array(i.search_text, ' ')) AS w`,
          [BENCH_TENANT, SEED_ORIGIN, from, to, SYLLABLES],
        );
        log(`seeded persons ${from}..${to - 1} in ${Date.now() - started} ms`);
      }
      // Fresh statistics, and the visibility map that lets the word index answer without visiting the table: after
      // seeding, and after a migration that rewrote rows (parties/0003 backfills the words' display names).
      const stale = await sql.query<{ rows: string }>(
        `SELECT coalesce(sum(n_dead_tup + n_ins_since_vacuum), 0) AS rows FROM pg_stat_user_tables
          WHERE relname IN ('parties', 'party_search_words')`,
      );
      if (have < count || Number(stale.rows[0]!.rows) > 1000)
        for (const table of ['parties', 'party_search_words']) await sql.query(`VACUUM ANALYZE ${table}`);
      return Math.max(have, count);
    });
  } finally {
    await db.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const count = Number(process.argv[2] ?? 1_000_000);
  const url = process.argv[3] ?? benchDatabaseUrl();
  const started = Date.now();
  const total = await seedPersons(url, count, (line) => process.stdout.write(`${line}\n`));
  process.stdout.write(`${total} persons in ${url.replace(/\/\/[^@]*@/, '//')} (${Date.now() - started} ms)\n`);
}
