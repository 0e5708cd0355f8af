import { registerPortalRoutes } from '@tessera/portal';
import type { RoleDefinition } from './role.js';

/** The sign-in portal (port 3000; 000 §4.5: GET /api/health answers 200 {"status":"ok"}). */
export const portalRole: RoleDefinition = {
  name: 'portal',
  serviceName: 'tessera-portal',
  listeners: (config) => [
    {
      name: 'portal',
      port: config.server.ports.portal,
      app: { title: 'Tessera portal', family: 'platform' },
      register: (app, platform) =>
        registerPortalRoutes(app, {
          tokenServiceUrl: config.portal.tokenServiceUrl,
          tokenServicePublicUrl: config.tokenService.issuer,
          tokenServiceIssuer: config.tokenService.issuer,
          bridgeUrl: config.portal.bridgeUrl,
          bridgePublicUrl: config.bridge.publicBaseUrl,
          portalPublicUrl: config.portal.publicUrl,
          serviceCredentials: { clientId: config.portal.clientId, clientSecret: config.portal.clientSecret ?? '' },
          keys: platform.keys,
          clock: platform.clock,
        }),
    },
  ],
};
