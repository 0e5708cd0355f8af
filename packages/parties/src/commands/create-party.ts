import { randomUUID } from 'node:crypto';
import { defineCommand } from '@tessera/platform';
import { checkFields } from '../domain/field-checks.js';
import type { PartyKind } from '../domain/party-kinds.js';
import { toColumns, typedView, type PartyFields } from '../domain/party-record.js';
import type { PartiesServices } from '../services.js';
import { memberStore } from '../storage/member-store.js';
import { partyStore } from '../storage/party-store.js';
import { partyAction } from './party-command.js';
import { checkNewMembers, checkUnitReference } from './party-references.js';
import { nameDuplicate } from './duplicates.js';

export interface CreatePartyInput {
  fields: PartyFields;
  /** A group's initial members. */
  members?: readonly string[] | undefined;
}

/** POST /{resource} (001 §4.4): 201 with the new party; its id is new and never reused. */
export const createParty = (s: PartiesServices, kind: PartyKind) =>
  defineCommand<CreatePartyInput, Record<string, unknown>>({
    id: partyAction(kind.resource, 'create'),
    access: 'write',
    businessIds: (_input, output): Record<string, string> =>
      output ? { partyId: String(output.id), partyType: kind.type } : { partyType: kind.type },
    async run(ctx, { fields, members }) {
      const now = s.clock.now();
      checkFields(fields, now);
      const columns = toColumns(kind, fields);
      const id = randomUUID();
      try {
        return await ctx.unitOfWork(async (sql) => {
          await checkUnitReference(sql, kind, columns, null);
          const record = await partyStore.insert(sql, id, columns, now);
          if (members && members.length > 0) {
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
