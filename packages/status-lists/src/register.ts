import type { Platform, RoleApp } from '@tessera/platform';
import type { StatusListsConfig } from './config.js';

export interface StatusListsDeps {
  config: StatusListsConfig;
}

/** Registers the routes of the `status-lists` role on its app. */
export function registerStatusListsRoutes(_app: RoleApp, _platform: Platform, _deps: StatusListsDeps): void {}
