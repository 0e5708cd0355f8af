import type { Platform, RoleApp } from '@tessera/platform';
import type { PartiesConfig } from './config.js';
import { PARTY_KINDS } from './domain/party-kinds.js';
import { registerJsonBody } from './http/json-body.js';
import { registerPartyRoutes } from './http/party-routes.js';
import { registerSubResourceRoutes } from './http/sub-resource-routes.js';
import { registerTypedRoutes } from './http/typed-routes.js';
import { createPartiesServices, type IdentityDirectory, type PartiesServices } from './services.js';

export interface PartiesDeps {
  config: PartiesConfig;
  /** The identity store (`@tessera/identity`): identity-to-application bindings name its identities. */
  identities: IdentityDirectory;
}

/** Registers the party management API (001 §4.4) on the `parties` role app. */
export async function registerPartiesRoutes(app: RoleApp, platform: Platform, deps: PartiesDeps): Promise<void> {
  await registerPartyApi(app, createPartiesServices(platform, deps));
}

/** The routes on given services (tests give them a database that counts statements), in a scope of their own. */
export async function registerPartyApi(app: RoleApp, services: PartiesServices): Promise<void> {
  await app.register(async (scope: RoleApp) => {
    // 001 §5: in the party API an X-Tenant-ID header is a trusted-infrastructure override
    // (`tenancy.trustedTenantOverride`); the policy still decides what its principal may do in that tenant.
    scope.addHook('onRoute', (route) => {
      route.config = { ...route.config, tenantOverride: true };
    });
    registerJsonBody(scope);
    for (const kind of PARTY_KINDS) registerTypedRoutes(scope, services, kind);
    registerSubResourceRoutes(scope, services);
    registerPartyRoutes(scope, services);
  });
}
