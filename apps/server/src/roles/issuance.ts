import { registerIssuanceRoutes } from '@tessera/issuance';
import type { RoleDefinition } from './role.js';

/** The issuance pipeline backend (001 §2.2, §4.2). Port 8096. Errors in the `{code, message}` envelope of 001 §7. */
export const issuanceRole: RoleDefinition = {
  name: 'issuance',
  serviceName: 'tessera-issuer',
  listeners: (config) => [
    {
      name: 'issuance',
      port: config.server.ports.issuance,
      app: { title: 'Tessera issuance', family: 'design' },
      register: (app, platform) => registerIssuanceRoutes(app, platform, { config: config.issuance }),
    },
  ],
};
