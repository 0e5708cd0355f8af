import { registerDesignsRoutes } from '@tessera/designs';
import type { RoleDefinition } from './role.js';

/** The credential design registry (001 §2.1, §4.1). Port 8094. */
export const designsRole: RoleDefinition = {
  name: 'designs',
  serviceName: 'tessera-designs',
  listeners: (config) => [
    {
      name: 'designs',
      port: config.server.ports.designs,
      app: { title: 'Tessera designs', family: 'design' },
      register: (app, platform) => registerDesignsRoutes(app, platform, { config: config.designs }),
    },
  ],
};
