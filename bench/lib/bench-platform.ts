import { randomBytes } from 'node:crypto';
import {
  createLogDestination,
  createPlatform,
  loadConfig,
  PlatformConfigSchema,
  type Migration,
  type Platform,
  type PlatformConfig,
} from '@tessera/platform';
import { logDestinationPath } from './server-child.js';
import { replicaRole, sharedAcrossReplicas } from './replica.js';

/** The temporary directory the harness gives each server child (`BENCH_DATA_DIR`). */
export function benchDataDir(): string {
  const dir = process.env.BENCH_DATA_DIR;
  if (!dir) throw new Error('BENCH_DATA_DIR is not set (the harness gives each server a temporary directory)');
  return dir;
}

/**
 * A fresh master key; replicas share one (replica 0's), since they read each other's keys from the database
 * (docs/architecture.md, Keys).
 */
async function masterKey(): Promise<string> {
  const fresh = async () => randomBytes(32).toString('base64');
  if (replicaRole().count === 1) return fresh();
  return (await sharedAcrossReplicas('master-key', async () => ({ key: await fresh() }))).key;
}

export interface BenchPlatformOptions {
  profile: 'development' | 'test';
  database: { url: string; maxPoolSize: number } | { dataDir: string };
  migrations: Migration[];
  /** Further configuration (token issuers, tenancy), merged over the bench defaults key by key. */
  overrides?: Record<string, unknown>;
}

/**
 * The platform as every bench server runs it: the whole middleware on, logs at info to BENCH_LOG_FILE (/dev/null
 * by default), rate limiting on with a limit no run reaches, a fresh master key, configuration from no environment
 * (the harness also strips OTEL_*, so tracing stays off).
 */
export async function startBenchPlatform(
  options: BenchPlatformOptions,
): Promise<{ config: PlatformConfig; platform: Platform }> {
  const config = loadConfig(PlatformConfigSchema, {
    env: {},
    overrides: {
      profile: options.profile,
      database: options.database,
      keys: { masterKey: await masterKey() },
      rateLimit: { enabled: true, requestsPerWindow: 1_000_000_000 },
      logging: { level: 'info' },
      ...options.overrides,
    },
  });
  const platform = await createPlatform(config, {
    migrations: options.migrations,
    logDestination: createLogDestination(logDestinationPath()),
    serviceName: 'tessera-bench',
  });
  return { config, platform };
}
