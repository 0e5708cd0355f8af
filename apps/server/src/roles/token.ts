import { bindCredentialIssuer, registerTokenServiceRoutes, type TokenServiceContext } from '@tessera/token-service';
import { credentialIssuerFor, type Oid4vciConfig } from '@tessera/oid4vci-issuer';
import { registerSsfRoutes } from '@tessera/platform';
import type { Contexts } from '../contexts.js';
import { forwardingOf } from '../event-forwarding.js';
import type { ServerConfig } from '../config.js';
import type { RoleDefinition } from './role.js';

/** The scope each credential configuration publishes (OpenID4VCI 1.0 §5.1.2): scope → configuration id. */
const credentialScopes = (config: Oid4vciConfig): Record<string, string> =>
  Object.fromEntries(
    Object.entries(config.credentialConfigurations).flatMap(([id, c]) => (c.scope ? [[c.scope, id]] : [])),
  );

/**
 * The token service with the OpenID4VCI issuer's tenant binding (issue 19 contract C): the credential issuer of a
 * tenant is the `aud` of its credential-endpoint access tokens, and a tenant without one has no OpenID4VCI grants.
 */
async function tokenService(contexts: Contexts, config: ServerConfig): Promise<TokenServiceContext> {
  const ctx = await contexts.token();
  bindCredentialIssuer(ctx, {
    credentialIssuerFor: credentialIssuerFor(config.oid4vci),
    credentialScopes: credentialScopes(config.oid4vci),
  });
  return ctx;
}

/**
 * The token service (000 §1): an internal port (8080) for the portal and relying parties inside the
 * deployment, and an external port (8092) for the public gateway.
 */
export const tokenRole: RoleDefinition = {
  name: 'token',
  serviceName: 'tessera-token-service',
  listeners: (config) => [
    {
      name: 'token-internal',
      port: config.server.ports.tokenInternal,
      app: { title: 'Tessera token service (internal)', family: 'oauth' },
      register: async (app, platform, contexts) => {
        await registerTokenServiceRoutes(app, await tokenService(contexts, config));
        // The deployment's SSF transmitter (001 §6): metadata, key set and stream management, internal port only.
        registerSsfRoutes(app, platform, forwardingOf(platform, config));
      },
    },
    {
      name: 'token-external',
      port: config.server.ports.tokenExternal,
      app: { title: 'Tessera token service (external)', family: 'oauth' },
      register: async (app, _platform, contexts) =>
        registerTokenServiceRoutes(app, await tokenService(contexts, config), { internal: false }),
    },
  ],
};
