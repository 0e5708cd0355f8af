import type { Database } from './database.js';
import { migrate, type Migration } from './migrate.js';
import { PgliteDatabase } from './pglite.js';
import { PostgresDatabase } from './postgres.js';

export interface OpenDatabaseOptions {
  url?: string | undefined;
  /** Data directory of the embedded database; undefined = in memory. */
  dataDir?: string | undefined;
  maxPoolSize?: number;
  connectTimeoutSeconds?: number;
  statementTimeoutSeconds?: number;
  migrations: Migration[];
  migrate?: boolean;
}

export type OpenedDatabase = Database & { migrate(): Promise<string[]> };

/** `DATABASE_URL` selects a real PostgreSQL server; without it the embedded PGlite database is used. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<OpenedDatabase> {
  const db = options.url
    ? await PostgresDatabase.open({
        url: options.url,
        maxPoolSize: options.maxPoolSize ?? 5,
        connectTimeoutSeconds: options.connectTimeoutSeconds ?? 5,
        statementTimeoutSeconds: options.statementTimeoutSeconds ?? 30,
        useRuntimeRole: true,
      })
    : await PgliteDatabase.open(options.dataDir);
  const opened = Object.assign(db, { migrate: () => migrate(db, options.migrations) });
  if (options.migrate !== false) await opened.migrate();
  await db.enableRuntimeRole();
  return opened;
}
