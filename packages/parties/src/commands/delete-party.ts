import { defineCommand } from '@tessera/platform';
import { conflict, partyNotFound } from '../domain/errors.js';
import type { PartyKind } from '../domain/party-kinds.js';
import type { PartiesServices } from '../services.js';
import { partyStore } from '../storage/party-store.js';
import { partyAction } from './party-command.js';

/**
 * DELETE /{resource}/{id} (001 §3, §4.4): soft delete, 204; 404 when no live party of this type has the id. The
 * row stays (audit, references) and disappears from every read. A unit that still holds units or persons is
 * refused (409): they would hang under a unit that no read shows.
 */
export const deleteParty = (s: PartiesServices, kind: PartyKind) =>
  defineCommand<{ id: string }, void>({
    id: partyAction(kind.resource, 'delete'),
    access: 'write',
    businessIds: (input) => ({ partyId: input.id, partyType: kind.type }),
    async run(ctx, { id }) {
      await ctx.unitOfWork(async (sql) => {
        if (!(await partyStore.lock(sql, id, kind.type))) throw partyNotFound();
        if (kind.type === 'ORGANIZATION_UNIT' && (await partyStore.unitInUse(sql, id)))
          throw conflict('The unit still holds units or persons; move or delete them first.');
        await partyStore.softDelete(sql, id, kind.type, s.clock.now());
      });
    },
  });
