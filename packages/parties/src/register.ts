import type { Platform, RoleApp } from '@tessera/platform';
import type { PartiesConfig } from './config.js';
import { PARTY_KINDS } from './domain/party-kinds.js';
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
export function registerPartiesRoutes(app: RoleApp, platform: Platform, deps: PartiesDeps): void {
  registerPartyApi(app, createPartiesServices(platform, deps));
}

/** The routes on given services (tests give them a database that counts statements). */
export function registerPartyApi(app: RoleApp, services: PartiesServices): void {
  for (const kind of PARTY_KINDS) registerTypedRoutes(app, services, kind);
  registerSubResourceRoutes(app, services);
  registerPartyRoutes(app, services);
}
