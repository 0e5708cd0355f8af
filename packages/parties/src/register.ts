import type { Platform, RoleApp } from '@tessera/platform';
import type { PartiesConfig } from './config.js';

export interface PartiesDeps {
  config: PartiesConfig;
}

/** Registers the routes of the `parties` role on its app. */
export function registerPartiesRoutes(_app: RoleApp, _platform: Platform, _deps: PartiesDeps): void {}
