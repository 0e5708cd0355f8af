import { randomUUID } from 'node:crypto';
import { defineCommand } from '@tessera/platform';
import { electronicValue, type ElectronicType } from '../domain/addresses.js';
import { partyNotFound } from '../domain/errors.js';
import type { PartiesServices } from '../services.js';
import { addressStore } from '../storage/address-store.js';
import { partyStore } from '../storage/party-store.js';
import { nameDuplicate } from './duplicates.js';

export interface AddElectronicAddressInput {
  partyId: string;
  addressType: ElectronicType;
  value: string;
  primary?: boolean | undefined;
  verified?: boolean | undefined;
}

/**
 * POST /parties/{id}/addresses/electronic (001 §4.4): 201 with the address, its value checked for its type
 * (domain/addresses.ts). One primary per type: a new primary address takes the flag from the previous one.
 */
export const addElectronicAddress = (s: PartiesServices) =>
  defineCommand<AddElectronicAddressInput, Record<string, unknown>>({
    id: 'party.addresses.add-electronic',
    access: 'write',
    businessIds: (input, output): Record<string, string> => ({
      partyId: input.partyId,
      addressType: input.addressType,
      ...(output ? { addressId: String(output.id) } : {}),
    }),
    async run(ctx, input) {
      const value = electronicValue(input.addressType, input.value);
      const primary = input.primary ?? false;
      try {
        return await ctx.unitOfWork(async (sql) => {
          if (!(await partyStore.lock(sql, input.partyId, null))) throw partyNotFound();
          if (primary) await addressStore.demotePrimary(sql, 'electronic', input.partyId, input.addressType);
          const row = {
            id: randomUUID(),
            partyId: input.partyId,
            type: input.addressType,
            value,
            primary,
            verified: input.verified ?? false,
          };
          return (await addressStore.addElectronic(sql, row, s.clock.now())) as Record<string, unknown>;
        });
      } catch (error) {
        throw nameDuplicate(error);
      }
    },
  });
