import { defineCommand } from '@tessera/platform';
import { partyNotFound } from '../domain/errors.js';
import { paginationOf, type PageRequest, type Pagination } from '../domain/pagination.js';
import type { PartiesServices } from '../services.js';
import { memberStore } from '../storage/member-store.js';
import { partyStore } from '../storage/party-store.js';

/** GET /groups/{id}/members (001 §4.4): one page of the live members (id, partyType, displayName). */
export const listGroupMembers = (s: PartiesServices) =>
  defineCommand<{ groupId: string; page: PageRequest }, { data: unknown[]; pagination: Pagination }>({
    id: 'party.groups.list-members',
    access: 'read',
    businessIds: (input) => ({ partyId: input.groupId }),
    async run(ctx, { groupId, page }) {
      const result = await s.db.withTenantSession(ctx.tenantId, async (sql) => {
        if (!(await partyStore.get(sql, groupId, 'GROUP'))) return null;
        return memberStore.list(sql, groupId, page);
      });
      if (!result) throw partyNotFound();
      return { data: result.members, pagination: paginationOf(page, result.hasMore, undefined) };
    },
  });
