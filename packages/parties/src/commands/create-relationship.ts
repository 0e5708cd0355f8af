import { randomUUID } from 'node:crypto';
import { defineCommand } from '@tessera/platform';
import { checkValidity } from '../domain/validity.js';
import type { PartiesServices } from '../services.js';
import { relationshipStore } from '../storage/relationship-store.js';
import { checkRelationship } from './relationship-checks.js';

export interface RelationshipInput {
  fromPartyId: string;
  toPartyId: string;
  relationshipType: string;
  validFrom?: string | null | undefined;
  validTo?: string | null | undefined;
}

/** POST /relationships (001 §4.4): 201 with the relationship (checks: relationship-checks.ts). */
export const createRelationship = (s: PartiesServices) =>
  defineCommand<RelationshipInput, Record<string, unknown>>({
    id: 'party.relationships.create',
    access: 'write',
    businessIds: (input, output): Record<string, string> => ({
      fromPartyId: input.fromPartyId,
      toPartyId: input.toPartyId,
      relationshipType: input.relationshipType,
      ...(output ? { relationshipId: String(output.id) } : {}),
    }),
    async run(ctx, input) {
      const window = checkValidity({ validFrom: input.validFrom ?? null, validTo: input.validTo ?? null });
      const row = { id: randomUUID(), ...input, ...window };
      return ctx.unitOfWork(async (sql) => {
        await checkRelationship(sql, row);
        return (await relationshipStore.insert(sql, row, s.clock.now())) as Record<string, unknown>;
      });
    },
  });
