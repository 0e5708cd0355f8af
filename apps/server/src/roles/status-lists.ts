import { registerStatusListsRoutes } from '@tessera/status-lists';
import type { RoleDefinition } from './role.js';

/** The status-list issuer (001 §2.4, §4.3): status lists, entries and their publication. Port 8098. */
export const statusListsRole: RoleDefinition = {
  name: 'status-lists',
  serviceName: 'tessera-status-lists',
  listeners: (config) => [
    {
      name: 'status-lists',
      port: config.server.ports.statusLists,
      app: { title: 'Tessera status-lists', family: 'oauth' },
      register: (app, platform) => registerStatusListsRoutes(app, platform, { config: config.statusLists }),
    },
  ],
};
