import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { loadConfig, PlatformConfigSchema, type PlatformConfig } from '../config/index.js';
import { platformMigrations, type Migration } from '../db/index.js';
import { createPlatform } from '../bootstrap.js';
import type { Platform } from '../platform.js';
import { createPostgresTestDatabase, type TestDatabaseKind } from './databases.js';

/** Captures the JSON log lines a platform writes, for assertions about logs. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: string, done: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
  get text(): string {
    return this.lines.join('\n');
  }
  records(): Record<string, unknown>[] {
    return this.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  }
}

export interface TestPlatform {
  platform: Platform;
  logs: LogCapture;
  databaseUrl: string | undefined;
  close(): Promise<void>;
}

/**
 * A whole platform on a fresh database of the given kind (in-memory PGlite, or a new PostgreSQL database),
 * with a random master key and logs captured in memory.
 */
export async function createTestPlatform(
  kind: TestDatabaseKind,
  options: {
    migrations?: Migration[];
    overrides?: Record<string, unknown>;
    configure?: (c: PlatformConfig) => void;
  } = {},
): Promise<TestPlatform> {
  const pg = kind === 'postgres' ? await createPostgresTestDatabase() : undefined;
  const config = loadConfig(PlatformConfigSchema, {
    env: {},
    overrides: {
      profile: 'test',
      database: pg ? { url: pg.url } : { dataDir: 'memory://' },
      keys: { masterKey: randomBytes(32).toString('base64') },
      tenancy: { seedDemoTenant: true },
      logging: { level: 'info' },
      ...options.overrides,
    },
  });
  options.configure?.(config);
  const logs = new LogCapture();
  const platform = await createPlatform(config, {
    migrations: options.migrations ?? platformMigrations,
    logDestination: logs,
  });
  return {
    platform,
    logs,
    databaseUrl: pg?.url,
    async close() {
      await platform.close();
      await pg?.drop();
    },
  };
}
