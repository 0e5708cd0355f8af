import { defineCommand } from '@tessera/platform';
import { partyNotFound } from '../domain/errors.js';
import type { PartiesServices } from '../services.js';
import { memberStore } from '../storage/member-store.js';
import { partyStore } from '../storage/party-store.js';
import { checkNewMembers } from './party-references.js';

/**
 * POST /groups/{id}/members and PUT /groups/{id}/members/{memberId} (001 §4.4): adds one member, idempotently
 * (a member already there changes nothing). Any live party of the tenant may be a member, a group too, unless it
 * would close a cycle (400 naming it); a member id that names no party of the tenant is 404.
 */
export const addGroupMember = (s: PartiesServices) =>
  defineCommand<{ groupId: string; memberId: string }, { added: boolean }>({
    id: 'party.groups.add-member',
    access: 'write',
    businessIds: (input, output): Record<string, string> => ({
      partyId: input.groupId,
      memberId: input.memberId,
      ...(output ? { outcome: output.added ? 'added' : 'unchanged' } : {}),
    }),
    async run(ctx, { groupId, memberId }) {
      const added = await ctx.unitOfWork(async (sql) => {
        if (!(await partyStore.lock(sql, groupId, 'GROUP'))) throw partyNotFound();
        await checkNewMembers(sql, groupId, [memberId], 'memberId');
        return memberStore.add(sql, groupId, memberId, s.clock.now());
      });
      return { added };
    },
  });
