import { defineCommand } from '@tessera/platform';
import { partyNotFound } from '../domain/errors.js';
import type { PartiesServices } from '../services.js';
import { addressStore } from '../storage/address-store.js';

/** DELETE /parties/{id}/addresses/electronic|physical/{addressId} (paths "not shown": README.md): 204, or 404. */
export const removeAddress = (_s: PartiesServices, kind: 'electronic' | 'physical') =>
  defineCommand<{ partyId: string; addressId: string }, void>({
    id: `party.addresses.remove-${kind}`,
    access: 'write',
    businessIds: (input) => ({ partyId: input.partyId, addressId: input.addressId }),
    async run(ctx, { partyId, addressId }) {
      await ctx.unitOfWork(async (sql) => {
        if (!(await addressStore.remove(sql, kind, partyId, addressId))) throw partyNotFound('address');
      });
    },
  });
