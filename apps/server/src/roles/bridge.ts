import { registerAuditRoutes } from '@tessera/platform';
import { registerBridgeRoutes } from '@tessera/bridge';
import type { RoleDefinition } from './role.js';

/** The wallet bridge (000 §1): presentation sessions, IDV and the external reconciliation API. Port 8090. */
export const bridgeRole: RoleDefinition = {
  name: 'bridge',
  serviceName: 'tessera-bridge',
  listeners: (config) => [
    {
      name: 'bridge',
      port: config.server.ports.bridge,
      app: { title: 'Tessera bridge', family: 'oauth' },
      register: async (app, platform, contexts) => {
        registerAuditRoutes(app, platform);
        const services = contexts.bridge();
        await registerBridgeRoutes(app, platform, {
          config: services.config,
          identities: services.identities,
          services,
        });
      },
    },
  ],
};
