import { defineCommand } from '@tessera/platform';
import { partyNotFound } from '../domain/errors.js';
import { checkValidity } from '../domain/validity.js';
import type { PartiesServices } from '../services.js';
import { relationshipStore } from '../storage/relationship-store.js';
import type { RelationshipInput } from './create-relationship.js';
import { checkRelationship } from './relationship-checks.js';

type Patch = { [K in keyof RelationshipInput]?: RelationshipInput[K] | null | undefined };

/** PUT /relationships/{id} (001 §4.4): a null or omitted field keeps the stored value; the result is re-checked. */
export const updateRelationship = (s: PartiesServices) =>
  defineCommand<{ id: string; patch: Patch }, Record<string, unknown>>({
    id: 'party.relationships.update',
    access: 'write',
    businessIds: (input) => ({ relationshipId: input.id }),
    async run(ctx, { id, patch }) {
      return ctx.unitOfWork(async (sql) => {
        const stored = await relationshipStore.lock(sql, id);
        if (!stored) throw partyNotFound('relationship');
        const merged = {
          id,
          fromPartyId: patch.fromPartyId ?? stored.fromPartyId,
          toPartyId: patch.toPartyId ?? stored.toPartyId,
          relationshipType: patch.relationshipType ?? stored.relationshipType,
          ...checkValidity({
            validFrom: patch.validFrom ?? stored.validFrom,
            validTo: patch.validTo ?? stored.validTo,
          }),
        };
        await checkRelationship(sql, merged);
        return (await relationshipStore.update(sql, merged, s.clock.now())) as Record<string, unknown>;
      });
    },
  });
