import type { RoleDefinition } from './role.js';

/** The sign-in portal (port 3000). 000 §4.5: GET /api/health answers 200 {"status":"ok"}. */
export const portalRole: RoleDefinition = {
  name: 'portal',
  serviceName: 'tessera-portal',
  listeners: (config) => [
    {
      name: 'portal',
      port: config.server.ports.portal,
      app: { title: 'Tessera portal', family: 'platform' },
      register: (app) => {
        app.get('/api/health', { config: { tenant: 'none', rateLimit: false }, schema: { hide: true } }, async () => ({ status: 'ok' }));
      },
    },
  ],
};
