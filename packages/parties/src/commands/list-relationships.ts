import { defineCommand } from '@tessera/platform';
import { partyNotFound } from '../domain/errors.js';
import { paginationOf, type PageRequest, type Pagination } from '../domain/pagination.js';
import type { PartiesServices } from '../services.js';
import { relationshipStore } from '../storage/relationship-store.js';

/**
 * GET /relationships (filters partyId, relationshipType) and GET /parties/{id}/relationships (001 §4.4): one page
 * of live relationships in creation order; for a party that is not live, 404.
 */
export const listRelationships = (s: PartiesServices, of: 'relationships' | 'parties') =>
  defineCommand<
    { partyId?: string | undefined; relationshipType?: string | undefined; page: PageRequest },
    { data: unknown[]; pagination: Pagination }
  >({
    id: of === 'parties' ? 'party.parties.list-relationships' : 'party.relationships.list',
    access: 'read',
    businessIds: (input): Record<string, string> => (input.partyId ? { partyId: input.partyId } : {}),
    async run(ctx, { page, ...filter }) {
      const result = await s.db.withTenantSession(ctx.tenantId, (sql) => relationshipStore.list(sql, filter, page));
      if (!result) throw partyNotFound();
      return { data: result.views, pagination: paginationOf(page, result.hasMore, undefined) };
    },
  });
