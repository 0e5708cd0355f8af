import { defineCommand } from '@tessera/platform';
import { partyNotFound } from '../domain/errors.js';
import type { PartiesServices } from '../services.js';
import { memberStore } from '../storage/member-store.js';
import { partyStore } from '../storage/party-store.js';

/** DELETE /groups/{id}/members/{memberId} (001 §4.4): 204; 404 when the group is not live or has no such member. */
export const removeGroupMember = (_s: PartiesServices) =>
  defineCommand<{ groupId: string; memberId: string }, void>({
    id: 'party.groups.remove-member',
    access: 'write',
    businessIds: (input) => ({ partyId: input.groupId, memberId: input.memberId }),
    async run(ctx, { groupId, memberId }) {
      await ctx.unitOfWork(async (sql) => {
        if (!(await partyStore.lock(sql, groupId, 'GROUP'))) throw partyNotFound();
        if (!(await memberStore.remove(sql, groupId, memberId))) throw partyNotFound('member');
      });
    },
  });
