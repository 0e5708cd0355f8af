import { defineCommand } from '@tessera/platform';
import { partyNotFound } from '../domain/errors.js';
import type { PartiesServices } from '../services.js';
import { addressStore } from '../storage/address-store.js';

/** GET /parties/{id}/addresses/electronic and /physical (001 §4.4): every address of that kind of the party. */
export const listAddresses = (s: PartiesServices, kind: 'electronic' | 'physical') =>
  defineCommand<{ partyId: string }, { data: unknown[] }>({
    id: `party.addresses.list-${kind}`,
    access: 'read',
    businessIds: (input) => ({ partyId: input.partyId }),
    async run(ctx, { partyId }) {
      const views = await s.db.withTenantSession(ctx.tenantId, (sql) => addressStore.list(sql, kind, partyId));
      if (views === null) throw partyNotFound();
      return { data: views };
    },
  });
