import { registerTokenServiceRoutes } from '@tessera/token-service';
import type { RoleDefinition } from './role.js';

/**
 * The token service (000 §1): an internal port (8080) for the portal and relying parties inside the
 * deployment, and an external port (8092) for the public gateway.
 */
export const tokenRole: RoleDefinition = {
  name: 'token',
  serviceName: 'tessera-token-service',
  listeners: (config) => [
    {
      name: 'token-internal',
      port: config.server.ports.tokenInternal,
      app: { title: 'Tessera token service (internal)', family: 'oauth' },
      register: async (app, _platform, contexts) => registerTokenServiceRoutes(app, await contexts.token()),
    },
    {
      name: 'token-external',
      port: config.server.ports.tokenExternal,
      app: { title: 'Tessera token service (external)', family: 'oauth' },
      register: async (app, _platform, contexts) =>
        registerTokenServiceRoutes(app, await contexts.token(), { internal: false }),
    },
  ],
};
