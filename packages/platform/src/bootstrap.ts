import { dirname } from 'node:path';
import type { PlatformConfig } from './config/index.js';
import { ConfigError } from './config/index.js';
import { openDatabase, type Migration } from './db/index.js';
import { createLogger, type Logger } from './observability/logger.js';
import { Metrics } from './observability/metrics.js';
import { systemClock, type Clock } from './observability/clock.js';
import { TenantRegistry } from './tenancy/index.js';
import { JwtAuthenticator } from './auth/jwt-authenticator.js';
import { RolePolicy, type PolicyDecisionPoint } from './auth/policy.js';
import { SoftwareKeyManager } from './keys/software-key-manager.js';
import { resolveMasterKey } from './keys/master-key.js';
import { AuditStore } from './audit/audit-store.js';
import { AuditRedaction } from './audit/redaction.js';
import { recoverStagedAuditEventsJob } from './audit/recover-staged-job.js';
import { createRateLimiter, RedisRateLimiter } from './ratelimit/index.js';
import { DpopReplayStores, purgeDpopReplayJob } from './dpop/dpop-replay-stores.js';
import { DatabaseJobScheduler } from './jobs/database-scheduler.js';
import { CommandBus } from './commands/command-bus.js';
import type { Platform } from './platform.js';
import type { DestinationStream } from 'pino';

export const DEMO_TENANT = 'demo';

export interface CreatePlatformOptions {
  migrations: Migration[];
  logger?: Logger;
  logDestination?: DestinationStream;
  clock?: Clock;
  metrics?: Metrics;
  policy?: PolicyDecisionPoint;
  serviceName?: string;
}

/**
 * Development defaults (issue 2 §2): each one is announced loudly at start, and refused under
 * NODE_ENV=production unless the operator configured the value explicitly.
 */
export function developmentDefaults(config: PlatformConfig): { name: string; key: string }[] {
  const defaults: { name: string; key: string }[] = [];
  if (!config.database.url)
    defaults.push({
      name: `embedded PGlite database in ${config.database.dataDir}`,
      key: 'database.url (DATABASE_URL)',
    });
  if (!config.keys.masterKey && !config.keys.masterKeyFile)
    defaults.push({
      name: `generated master key in ${dirname(config.database.dataDir)}/master.key`,
      key: 'keys.masterKey (MASTER_KEY) or keys.masterKeyFile (MASTER_KEY_FILE)',
    });
  return defaults;
}

export function assertProductionSafe(config: PlatformConfig): void {
  if (config.profile !== 'production') return;
  const first = developmentDefaults(config)[0];
  if (first)
    throw new ConfigError(
      first.key,
      `must be configured explicitly under NODE_ENV=production (the development default would be: ${first.name})`,
    );
}

export async function createPlatform(config: PlatformConfig, options: CreatePlatformOptions): Promise<Platform> {
  assertProductionSafe(config);
  const logger =
    options.logger ??
    createLogger({
      level: config.logging.level,
      service: options.serviceName ?? 'tessera',
      ...(options.logDestination ? { destination: options.logDestination } : {}),
    });
  const clock = options.clock ?? systemClock;
  const metrics = options.metrics ?? new Metrics();
  const devDefaults = developmentDefaults(config);

  const db = await openDatabase({
    url: config.database.url,
    dataDir: config.database.url ? undefined : config.database.dataDir,
    maxPoolSize: config.database.maxPoolSize,
    connectTimeoutSeconds: config.database.connectTimeoutSeconds,
    statementTimeoutSeconds: config.database.statementTimeoutSeconds,
    migrations: options.migrations,
    migrate: config.database.migrateOnStart,
  });

  const tenants = new TenantRegistry(db, config.tenancy.hostMappings);
  // The demo tenant is a development default; in production it exists only when configured explicitly.
  const seedDemo = config.tenancy.seedDemoTenant ?? config.profile !== 'production';
  if (seedDemo) {
    await tenants.ensure({ id: DEMO_TENANT, displayName: 'Demo tenant' });
    if (config.tenancy.seedDemoTenant === undefined)
      devDefaults.push({ name: `demo tenant "${DEMO_TENANT}" (the default tenant)`, key: 'tenancy.seedDemoTenant' });
  }
  for (const t of config.tenancy.tenants) await tenants.ensure(t);
  await tenants.load();
  tenants.startRefresh(config.tenancy.cacheRefreshSeconds, (error) =>
    logger.warn({ err: error }, 'tenant cache refresh failed'),
  );
  if (seedDemo && !config.tenancy.defaultTenant) config.tenancy.defaultTenant = DEMO_TENANT;

  const masterKey = resolveMasterKey({
    masterKey: config.keys.masterKey,
    masterKeyFile: config.keys.masterKeyFile,
    generateIn: dirname(config.database.dataDir),
    allowGenerate: config.profile !== 'production',
  });
  const keys = new SoftwareKeyManager({ db, masterKey: masterKey.key, metrics, clock });
  const audit = new AuditStore({
    db,
    keys,
    metrics,
    clock,
    logger,
    signing: config.audit.events.signing,
    redaction: new AuditRedaction(config.audit.redaction, masterKey.key),
  });
  const rateLimiter = createRateLimiter({
    redisUrl: config.redis.url,
    keyPrefix: config.redis.keyPrefix,
    onError: (error) => logger.warn({ err: error }, 'rate limiter unavailable; request allowed'),
  });
  const jobs = new DatabaseJobScheduler({ db, logger, metrics, clock });
  const policy =
    options.policy ??
    new RolePolicy({ tenantAdminRole: config.auth.tenantAdminRole, platformAdminRole: config.auth.platformAdminRole });
  const authenticator = new JwtAuthenticator({
    issuers: config.auth.issuers,
    tenantClaim: config.tenancy.jwtClaim,
    rolesClaim: config.auth.rolesClaim,
    platformAdminRole: config.auth.platformAdminRole,
    defaultTenant: config.tenancy.defaultTenant,
    clockToleranceSeconds: config.auth.clockToleranceSeconds,
    jwksCacheSeconds: config.auth.jwksCacheSeconds,
    jwksCooldownSeconds: config.auth.jwksCooldownSeconds,
  });
  const commands = new CommandBus({ policy, audit, db, metrics, redactCommands: config.audit.redactCommands });
  jobs.register(recoverStagedAuditEventsJob(audit));
  // Redis when configured (the rate limiter's connection is reused), else the database's `dpop_replay` table.
  const dpopReplay = new DpopReplayStores({
    db,
    clock,
    redis: rateLimiter instanceof RedisRateLimiter ? rateLimiter.redis : null,
    redisKeyPrefix: config.redis.keyPrefix,
  });
  jobs.register(purgeDpopReplayJob(dpopReplay, logger));

  return {
    config,
    db,
    logger,
    metrics,
    clock,
    tenants,
    authenticator,
    policy,
    keys,
    audit,
    rateLimiter,
    jobs,
    commands,
    dpopReplay,
    developmentDefaults: devDefaults.map((d) => d.name),
    async close() {
      await jobs.stop();
      tenants.stopRefresh();
      await audit.close();
      await rateLimiter.close();
      await db.close();
    },
  };
}
