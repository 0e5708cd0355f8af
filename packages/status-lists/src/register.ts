import type { Platform, RoleApp } from '@tessera/platform';
import type { StatusListsConfig } from './config.js';
import { registerRoutes } from './http/routes.js';
import { statusListServices } from './services.js';

export interface StatusListsDeps {
  config: StatusListsConfig;
}

/** Registers the routes of the `status-lists` role on its app. */
export async function registerStatusListsRoutes(
  app: RoleApp,
  platform: Platform,
  deps: StatusListsDeps,
): Promise<void> {
  await registerRoutes(app, statusListServices(platform, deps.config));
}
