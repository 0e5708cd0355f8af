import { defineCommand } from '@tessera/platform';
import { partyNotFound } from '../domain/errors.js';
import { checkFields } from '../domain/field-checks.js';
import type { PartyKind } from '../domain/party-kinds.js';
import { mergeFields, toColumns, toFields, typedView, type PartyFields } from '../domain/party-record.js';
import type { PartiesServices } from '../services.js';
import { memberStore } from '../storage/member-store.js';
import { partyStore } from '../storage/party-store.js';
import { nameDuplicate } from './duplicates.js';
import { partyAction } from './party-command.js';
import { checkNewMembers, checkUnitReference } from './party-references.js';

export interface UpdatePartyInput {
  id: string;
  fields: PartyFields;
  /** A group's members, replaced when given. */
  members?: readonly string[] | null | undefined;
}

/** PUT /{resource}/{id} (001 §4.4): a null or omitted field keeps the stored value. */
export const updateParty = (s: PartiesServices, kind: PartyKind) =>
  defineCommand<UpdatePartyInput, Record<string, unknown>>({
    id: partyAction(kind.resource, 'update'),
    access: 'write',
    businessIds: (input) => ({ partyId: input.id, partyType: kind.type }),
    async run(ctx, { id, fields, members }) {
      const now = s.clock.now();
      checkFields(fields, now);
      try {
        return await ctx.unitOfWork(async (sql) => {
          const stored = await partyStore.lock(sql, id, kind.type);
          if (!stored) throw partyNotFound();
          const columns = toColumns(kind, mergeFields(toFields(stored), fields));
          if (columns.organizationUnitId !== stored.organizationUnitId)
            await checkUnitReference(sql, kind, columns, id);
          const record = await partyStore.update(sql, id, columns, now);
          if (members !== undefined && members !== null) {
            const unique = [...new Set(members)];
            await checkNewMembers(sql, id, unique, 'members');
            await memberStore.replace(sql, id, unique, now);
          }
          return typedView(record);
        });
      } catch (error) {
        throw nameDuplicate(error);
      }
    },
  });
