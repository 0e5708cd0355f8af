import type { Platform, RoleApp, RoleAppOptions, RoleName } from '@tessera/platform';
import type { ServerConfig } from '../config.js';
import type { Contexts } from '../contexts.js';

/** One listening app of a role (the token role has two: internal and external). */
export interface RoleListener {
  /** Name used in logs and metrics, e.g. `token-internal`. */
  name: string;
  port: number;
  app: Omit<RoleAppOptions, 'role'>;
  register(app: RoleApp, platform: Platform, contexts: Contexts): Promise<void> | void;
}

export interface RoleDefinition {
  name: RoleName;
  /** OTEL_SERVICE_NAME default of a process that runs this role alone. */
  serviceName: string;
  listeners(config: ServerConfig): RoleListener[];
}
