import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { openDatabase, type Database, type Migration, type OpenedDatabase, platformMigrations } from '../db/index.js';

/**
 * Test databases: every suite that touches storage runs on both engines (`describe.each(DATABASE_KINDS)`).
 * PostgreSQL: a fresh database per call on the machine's server (TEST_DATABASE_URL, default the local trust
 * socket), dropped on close. PGlite: in memory.
 */
export const DATABASE_KINDS = ['pglite', 'postgres'] as const;
export type TestDatabaseKind = (typeof DATABASE_KINDS)[number];

export const TEST_PG_ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  db: OpenedDatabase;
  /** Connection string of the fresh PostgreSQL database (undefined for PGlite). */
  url: string | undefined;
  close(): Promise<void>;
}

export function withDatabaseName(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function createPostgresTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `tessera_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: withDatabaseName(TEST_PG_ADMIN_URL, name),
    async drop() {
      const c = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export async function openTestDatabase(
  kind: TestDatabaseKind,
  migrations: Migration[] = platformMigrations,
): Promise<TestDatabase> {
  if (kind === 'pglite') {
    const db = await openDatabase({ migrations });
    return { db, url: undefined, close: () => db.close() };
  }
  const created = await createPostgresTestDatabase();
  const db = await openDatabase({ url: created.url, migrations, maxPoolSize: 5 });
  return {
    db,
    url: created.url,
    async close() {
      await db.close();
      await created.drop();
    },
  };
}

/** Inserts tenants directly (platform scope), for tests. */
export async function seedTenants(db: OpenedDatabase, ...ids: string[]): Promise<void> {
  await db.withPlatform(async (sql) => {
    for (const id of ids) {
      await sql.query(`INSERT INTO tenants (id, display_name) VALUES ($1, $1) ON CONFLICT (id) DO NOTHING`, [id]);
    }
  });
}

/** The database, counting the units of work opened through it (tests of caching: how often storage is reached). */
export function countingDatabase(db: Database): { db: Database; units: () => number } {
  let units = 0;
  return {
    units: () => units,
    db: {
      kind: db.kind,
      withTenant: (tenantId, fn) => (units++, db.withTenant(tenantId, fn)),
      withTenantSession: (tenantId, fn) => (units++, db.withTenantSession(tenantId, fn)),
      withPlatform: (fn) => (units++, db.withPlatform(fn)),
      withAdvisoryLock: (name, fn) => db.withAdvisoryLock(name, fn),
      ping: (timeoutMs) => db.ping(timeoutMs),
      changes: db.changes,
      close: () => db.close(),
    },
  };
}
