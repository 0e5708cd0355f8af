import { registerPartiesRoutes } from '@tessera/parties';
import type { RoleDefinition } from './role.js';

/** The party management API (001 §2.5, §4.4). Port 8100. */
export const partiesRole: RoleDefinition = {
  name: 'parties',
  serviceName: 'tessera-parties',
  listeners: (config) => [
    {
      name: 'parties',
      port: config.server.ports.parties,
      app: { title: 'Tessera parties', family: 'party' },
      register: (app, platform, contexts) =>
        registerPartiesRoutes(app, platform, { config: config.parties, identities: contexts.identities() }),
    },
  ],
};
