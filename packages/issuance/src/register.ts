import type { Platform, RoleApp } from '@tessera/platform';
import type { IssuanceConfig } from './config.js';
import { registerPipelineRoutes } from './http/routes.js';
import { purgeExpiredJob } from './jobs/purge-expired-job.js';
import { createIssuanceServices, type IssuanceServices } from './services.js';

export interface IssuanceDeps {
  config: IssuanceConfig;
}

/**
 * Registers the issuance pipeline backend (001 §4.2) on the `issuance` role app, and its purge of expired sessions
 * with the platform's scheduler (once per process: the role has one listener; the job runs once across replicas).
 */
export async function registerIssuanceRoutes(app: RoleApp, platform: Platform, deps: IssuanceDeps): Promise<void> {
  await registerIssuanceApi(app, createIssuanceServices(platform, deps.config));
  platform.jobs.register(purgeExpiredJob({ db: platform.db, clock: platform.clock, logger: platform.logger }));
}

/** The routes on given services, in a scope of their own. */
export async function registerIssuanceApi(app: RoleApp, services: IssuanceServices): Promise<void> {
  await app.register(async (scope: RoleApp) => {
    registerPipelineRoutes(scope, services);
  });
}
