import { randomUUID } from 'node:crypto';
import { isAppError, type CommandContext, type Platform, type Principal } from '@tessera/platform';
import { allocateStatusEntry as allocateCommand } from './commands/allocate-status-entry.js';
import { createStatusList } from './commands/create-status-list.js';
import { pairWithScope } from './commands/service-scope.js';
import type { StatusListsConfig } from './config.js';
import type { AllocatedEntry } from './domain/entry-shapes.js';
import type { ListType, StatusPurpose } from './domain/list-definition.js';
import type { StatusBits } from './domain/status-bits.js';
import { statusListServices } from './services.js';

/**
 * The in-process interface the issuance context calls so that each credential it issues carries a status entry
 * (issue 16 §6). Either a list the tenant created (`listId`), or a configuration: the tenant's list series of that
 * configuration (id `issuance-<type>-<purpose>-<bits>[-<keyRef>]`, issuer the tenant's public base URL) is created
 * on first use. Each call is a command through the bus (policy, audit) under the issuance service's principal.
 */
export type StatusListRef =
  | { listId: string }
  | {
      type: ListType;
      statusPurpose?: StatusPurpose;
      bitsPerStatus?: StatusBits;
      length?: number;
      keyRef?: string;
    };

export interface StatusEntryAllocator {
  allocateStatusEntry(tenant: string, listConfig: StatusListRef): Promise<AllocatedEntry>;
}

export function createStatusEntryAllocator(platform: Platform, config: StatusListsConfig): StatusEntryAllocator {
  const s = statusListServices(platform, config);
  const allocate = pairWithScope(allocateCommand(s), config.serviceScope).byScope;
  const create = pairWithScope(createStatusList(s), config.serviceScope).byScope;

  const context = (tenantId: string): CommandContext => {
    const principal: Principal = {
      id: 'status-lists:issuance',
      kind: 'service',
      tenantId,
      roles: [],
      scopes: [config.serviceScope],
      clientId: null,
      issuer: null,
    };
    return { tenantId, principal, correlationId: randomUUID(), trace: null, log: platform.logger };
  };

  return {
    async allocateStatusEntry(tenant, listConfig) {
      const ctx = context(tenant);
      if ('listId' in listConfig) return platform.commands.execute(allocate, ctx, { listId: listConfig.listId });
      const purpose = listConfig.statusPurpose ?? 'revocation';
      const bits = listConfig.bitsPerStatus ?? 1;
      const listId = [
        'issuance',
        listConfig.type,
        purpose,
        String(bits),
        ...(listConfig.keyRef ? [listConfig.keyRef] : []),
      ].join('-');
      try {
        return await platform.commands.execute(allocate, ctx, { listId });
      } catch (error) {
        if (!(isAppError(error) && error.code === 'not_found')) throw error;
      }
      // First use of this configuration in the tenant: create its series.
      try {
        await platform.commands.execute(create, ctx, {
          body: {
            type: listConfig.type,
            id: listId,
            issuer: s.baseUrlOf(tenant),
            proofFormat: 'jwt',
            statusPurpose: purpose,
            length: listConfig.length,
            keyRef: listConfig.keyRef,
            oauthStatusList: { bitsPerStatus: bits },
          },
        });
      } catch (error) {
        // Made meanwhile by a concurrent call or another replica.
        if (!(isAppError(error) && error.code === 'already_exists')) throw error;
      }
      return platform.commands.execute(allocate, ctx, { listId });
    },
  };
}
