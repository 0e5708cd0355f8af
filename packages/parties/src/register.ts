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
    registerJsonBody(scope);
    for (const kind of PARTY_KINDS) registerTypedRoutes(scope, services, kind);
    registerSubResourceRoutes(scope, services);
    registerPartyRoutes(scope, services);
  });
}
