import type { Platform, RoleApp } from '@tessera/platform';
import type { SigningConfig } from './config.js';

export interface SigningDeps {
  config: SigningConfig;
}

/** Registers the routes of the `signing` role on its app. */
export function registerSigningRoutes(_app: RoleApp, _platform: Platform, _deps: SigningDeps): void {}
