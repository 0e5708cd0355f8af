import type { Platform, RoleApp } from '@tessera/platform';
import type { IssuanceConfig } from './config.js';
import { registerPipelineRoutes } from './http/routes.js';
import { createIssuanceServices, type IssuanceServices } from './services.js';

export interface IssuanceDeps {
  config: IssuanceConfig;
}

/** Registers the issuance pipeline backend (001 §4.2) on the `issuance` role app. */
export async function registerIssuanceRoutes(app: RoleApp, platform: Platform, deps: IssuanceDeps): Promise<void> {
  await registerIssuanceApi(app, createIssuanceServices(platform, deps.config));
}

/** The routes on given services, in a scope of their own. */
export async function registerIssuanceApi(app: RoleApp, services: IssuanceServices): Promise<void> {
  await app.register(async (scope: RoleApp) => {
    registerPipelineRoutes(scope, services);
  });
}
