import { openDatabase } from '@tessera/platform';
import type { ServerConfig } from '../config.js';
import { allMigrations } from '../migrations.js';

/** `npm run migrate`: applies pending migrations and exits. */
export async function runMigrate(config: ServerConfig): Promise<number> {
  const db = await openDatabase({
    url: config.database.url,
    dataDir: config.database.url ? undefined : config.database.dataDir,
    migrations: allMigrations,
    migrate: false,
  });
  try {
    const applied = await db.migrate();
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'up to date');
    return 0;
  } finally {
    await db.close();
  }
}
