import type { ApiFamily, RoleName } from '@tessera/platform';
import type { ServerConfig } from '../config.js';
import type { RoleDefinition } from './role.js';

/** A role whose capability is still to be built: it listens on its documented port with the operational endpoints. */
export function plannedRole(
  name: RoleName,
  serviceName: string,
  port: (c: ServerConfig) => number,
  family: ApiFamily,
): RoleDefinition {
  return {
    name,
    serviceName,
    listeners: (config) => [
      { name, port: port(config), app: { title: `Tessera ${name}`, family }, register: () => undefined },
    ],
  };
}
