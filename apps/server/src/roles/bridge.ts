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
      // 000 §4.5: the bridge's /health reports its readiness (database, key management, cleanup jobs) as booleans.
      app: { title: 'Tessera bridge', family: 'oauth', operational: 'health-readiness' },
      register: async (app, platform, contexts) => {
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
