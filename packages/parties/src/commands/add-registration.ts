import { randomUUID } from 'node:crypto';
import { defineCommand } from '@tessera/platform';
import { partyNotFound } from '../domain/errors.js';
import { registrationValue } from '../domain/registrations.js';
import type { PartiesServices } from '../services.js';
import { partyStore } from '../storage/party-store.js';
import { registrationStore } from '../storage/registration-store.js';
import { nameDuplicate } from './duplicates.js';

export interface AddRegistrationInput {
  organizationId: string;
  scheme: string;
  value: string;
  issuingAuthority?: string | undefined;
}

/**
 * POST /organizations/{id}/registrations (001 §4.4): 201 with the registration; a VAT number or LEI is checked
 * (domain/registrations.ts); the same scheme and value twice in the tenant is 409.
 */
export const addRegistration = (s: PartiesServices) =>
  defineCommand<AddRegistrationInput, Record<string, unknown>>({
    id: 'party.organizations.add-registration',
    access: 'write',
    businessIds: (input, output): Record<string, string> => ({
      partyId: input.organizationId,
      scheme: input.scheme,
      ...(output ? { registrationId: String(output.id) } : {}),
    }),
    async run(ctx, input) {
      const value = registrationValue(input.scheme, input.value);
      try {
        return await ctx.unitOfWork(async (sql) => {
          if (!(await partyStore.lock(sql, input.organizationId, 'ORGANIZATION'))) throw partyNotFound();
          const row = {
            id: randomUUID(),
            partyId: input.organizationId,
            scheme: input.scheme,
            value,
            issuingAuthority: input.issuingAuthority ?? null,
          };
          return (await registrationStore.add(sql, row, s.clock.now())) as Record<string, unknown>;
        });
      } catch (error) {
        throw nameDuplicate(error);
      }
    },
  });
