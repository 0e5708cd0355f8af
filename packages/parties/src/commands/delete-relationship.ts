import { defineCommand } from '@tessera/platform';
import { partyNotFound } from '../domain/errors.js';
import type { PartiesServices } from '../services.js';
import { relationshipStore } from '../storage/relationship-store.js';

/** DELETE /relationships/{id} (001 §4.4): soft delete like the parties', 204; 404 when not live. */
export const deleteRelationship = (s: PartiesServices) =>
  defineCommand<{ id: string }, void>({
    id: 'party.relationships.delete',
    access: 'write',
    businessIds: (input) => ({ relationshipId: input.id }),
    async run(ctx, { id }) {
      await ctx.unitOfWork(async (sql) => {
        if (!(await relationshipStore.softDelete(sql, id, s.clock.now()))) throw partyNotFound('relationship');
      });
    },
  });
