import { registerSigningRoutes } from '@tessera/signing';
import type { RoleDefinition } from './role.js';

/** The document-signing API (002 §2.1, §4.1). Port 8102. */
export const signingRole: RoleDefinition = {
  name: 'signing',
  serviceName: 'tessera-signing',
  listeners: (config) => [
    {
      name: 'signing',
      port: config.server.ports.signing,
      app: { title: 'Tessera signing', family: 'oauth' },
      register: (app, platform) => {
        registerSigningRoutes(app, platform, { config: config.signing });
      },
    },
  ],
};
