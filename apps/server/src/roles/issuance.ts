import { createDesignDisplays } from '@tessera/designs';
import { createIssuanceSessions, registerIssuanceRoutes } from '@tessera/issuance';
import { registerOid4vciRoutes } from '@tessera/oid4vci-issuer';
import { createStatusEntryAllocator } from '@tessera/status-lists';
import { createCredentialGrants, signingKeyAlias } from '@tessera/token-service';
import { ConfigError } from '@tessera/platform';
import type { RoleDefinition } from './role.js';

/**
 * The issuance pipeline backend (001 §2.2, §4.2) and, beside it, the OpenID4VCI issuer (issue 19: wallet-facing
 * endpoints in the oauth envelope, offers). Port 8096. Pipeline errors in the `{code, message}` envelope of 001 §7.
 */
export const issuanceRole: RoleDefinition = {
  name: 'issuance',
  serviceName: 'tessera-issuer',
  listeners: (config) => [
    {
      name: 'issuance',
      port: config.server.ports.issuance,
      app: { title: 'Tessera issuance', family: 'design' },
      register: async (app, platform) => {
        await registerIssuanceRoutes(app, platform, { config: config.issuance });
        const tokenService = config.tokenService;
        // HAIP: DPoP-bound tokens at the credential endpoint need DPoP at the token service.
        if (config.oid4vci.dpopRequired && Object.keys(config.oid4vci.tenants).length > 0 && !tokenService.dpop.enabled)
          throw new ConfigError(
            'oid4vci.dpopRequired',
            'needs tokenService.dpop.enabled (the token service binds the access tokens), or set it to false',
          );
        await registerOid4vciRoutes(app, platform, {
          config: config.oid4vci,
          grants: createCredentialGrants(platform, { config: tokenService.oid4vci }),
          sessions: createIssuanceSessions(platform, config.issuance),
          statusEntries: createStatusEntryAllocator(platform, config.statusLists),
          // Metadata display from the design bound to a configuration (issue 17 item 6), read in process.
          designs: createDesignDisplays(platform, config.designs),
          // Contract B: the token service of the tenant mints the access tokens; its keys are read from the key
          // manager every replica shares (no fetch of its JWKS).
          authorizationServer: {
            issuerFor: (tenantId) => (tokenService.tenantIssuers[tenantId] ?? tokenService.issuer).replace(/\/$/, ''),
            jwks: (tenantId) => platform.keys.publishedJwks(signingKeyAlias(tenantId)),
          },
        });
      },
    },
  ],
};
