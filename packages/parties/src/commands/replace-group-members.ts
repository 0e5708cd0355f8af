import { defineCommand } from '@tessera/platform';
import { partyNotFound } from '../domain/errors.js';
import type { PartiesServices } from '../services.js';
import { memberStore } from '../storage/member-store.js';
import { partyStore } from '../storage/party-store.js';
import { checkNewMembers } from './party-references.js';

/**
 * PUT /groups/{id}/members (001 §4.4, the method "not shown": PUT replaces a collection): the members become
 * exactly the list given; each a live party of the tenant, no cycle (400 naming it). All or nothing.
 */
export const replaceGroupMembers = (s: PartiesServices) =>
  defineCommand<{ groupId: string; members: readonly string[] }, { members: number }>({
    id: 'party.groups.replace-members',
    access: 'write',
    businessIds: (input) => ({ partyId: input.groupId }),
    async run(ctx, { groupId, members }) {
      const unique = [...new Set(members)];
      await ctx.unitOfWork(async (sql) => {
        if (!(await partyStore.lock(sql, groupId, 'GROUP'))) throw partyNotFound();
        await checkNewMembers(sql, groupId, unique, 'members');
        await memberStore.replace(sql, groupId, unique, s.clock.now());
      });
      return { members: unique.length };
    },
  });
