import type { Platform, RoleApp } from '@tessera/platform';
import type { DesignsConfig } from './config.js';

export interface DesignsDeps {
  config: DesignsConfig;
}

/** Registers the routes of the `designs` role on its app. */
export function registerDesignsRoutes(_app: RoleApp, _platform: Platform, _deps: DesignsDeps): void {}
