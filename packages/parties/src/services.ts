import type { Clock, CommandBus, Database, Platform, Sql } from '@tessera/platform';
import type { PartiesConfig } from './config.js';

/**
 * The identity store as this context needs it: whether an internal identity exists in the tenant (the identity of
 * an identity-to-application binding, 001 §2.5). `@tessera/identity`'s IdentityStore satisfies it.
 */
export interface IdentityDirectory {
  get(unit: { tenantId: string; sql: Sql }, internalIdentityId: string): Promise<unknown>;
}

/** What the party API's routes and commands share. */
export interface PartiesServices {
  db: Database;
  clock: Clock;
  bus: CommandBus;
  config: PartiesConfig;
  identities: IdentityDirectory;
}

export function createPartiesServices(
  platform: Platform,
  deps: { config: PartiesConfig; identities: IdentityDirectory; db?: Database },
): PartiesServices {
  return {
    db: deps.db ?? platform.db,
    clock: platform.clock,
    bus: platform.commands,
    config: deps.config,
    identities: deps.identities,
  };
}
