import type { PlatformConfig } from './config/index.js';
import type { OpenedDatabase } from './db/index.js';
import type { Logger } from './observability/logger.js';
import type { Metrics } from './observability/metrics.js';
import type { Clock } from './observability/clock.js';
import type { TenantRegistry } from './tenancy/index.js';
import type { JwtAuthenticator } from './auth/jwt-authenticator.js';
import type { PolicyDecisionPoint } from './auth/policy.js';
import type { KeyManager } from './keys/key-manager.js';
import type { RateLimiter } from './ratelimit/rate-limiter.js';
import type { JobScheduler } from './jobs/scheduler.js';
import type { CommandBus } from './commands/command-bus.js';
import type { AuditStore } from './audit/audit-store.js';
import type { DpopReplayStores } from './dpop/dpop-replay-stores.js';

/**
 * The platform services one process shares among its roles. Built once by `createPlatform` (bootstrap.ts) in the
 * composition root, or by the test kit.
 */
export interface Platform {
  config: PlatformConfig;
  db: OpenedDatabase;
  logger: Logger;
  metrics: Metrics;
  clock: Clock;
  tenants: TenantRegistry;
  authenticator: JwtAuthenticator;
  policy: PolicyDecisionPoint;
  keys: KeyManager;
  audit: AuditStore;
  rateLimiter: RateLimiter;
  jobs: JobScheduler;
  commands: CommandBus;
  /** The replay state of DPoP proofs (RFC 9449 §11.1) for every endpoint that checks them. */
  dpopReplay: DpopReplayStores;
  /** Development defaults in effect, announced at start (and refused in production). */
  developmentDefaults: string[];
  close(): Promise<void>;
}
