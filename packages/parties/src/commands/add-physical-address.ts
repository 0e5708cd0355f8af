import { randomUUID } from 'node:crypto';
import { defineCommand } from '@tessera/platform';
import { partyNotFound } from '../domain/errors.js';
import type { PartiesServices } from '../services.js';
import { addressStore } from '../storage/address-store.js';
import { partyStore } from '../storage/party-store.js';

export interface AddPhysicalAddressInput {
  partyId: string;
  addressType: string;
  streetLines: string[];
  locality?: string | undefined;
  region?: string | undefined;
  postalCode?: string | undefined;
  countryCode: string;
  primary?: boolean | undefined;
}

/**
 * POST /parties/{id}/addresses/physical (001 §4.4, paths "not shown": README.md): 201 with the address. One
 * primary per type, as for electronic addresses.
 */
export const addPhysicalAddress = (s: PartiesServices) =>
  defineCommand<AddPhysicalAddressInput, Record<string, unknown>>({
    id: 'party.addresses.add-physical',
    access: 'write',
    businessIds: (input, output): Record<string, string> => ({
      partyId: input.partyId,
      ...(output ? { addressId: String(output.id) } : {}),
    }),
    async run(ctx, input) {
      const primary = input.primary ?? false;
      return ctx.unitOfWork(async (sql) => {
        if (!(await partyStore.lock(sql, input.partyId, null))) throw partyNotFound();
        if (primary) await addressStore.demotePrimary(sql, 'physical', input.partyId, input.addressType);
        const row = {
          id: randomUUID(),
          partyId: input.partyId,
          type: input.addressType,
          streetLines: input.streetLines,
          locality: input.locality ?? null,
          region: input.region ?? null,
          postalCode: input.postalCode ?? null,
          countryCode: input.countryCode,
          primary,
        };
        return (await addressStore.addPhysical(sql, row, s.clock.now())) as Record<string, unknown>;
      });
    },
  });
