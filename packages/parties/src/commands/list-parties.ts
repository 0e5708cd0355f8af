import { defineCommand } from '@tessera/platform';
import { invalidField } from '../domain/errors.js';
import { paginationOf, type PageRequest, type Pagination } from '../domain/pagination.js';
import type { PartyKind } from '../domain/party-kinds.js';
import { baseView, typedView } from '../domain/party-record.js';
import { searchPlan } from '../domain/search-text.js';
import type { PartiesServices } from '../services.js';
import { partyStore, type PartyFilter } from '../storage/party-store.js';
import { partyAction } from './party-command.js';

export interface ListPartiesInput {
  filter: Omit<PartyFilter, 'search'> & { q?: string | undefined };
  page: PageRequest;
}

export interface PartyList {
  data: Record<string, unknown>[];
  pagination: Pagination;
}

/**
 * GET /{resource} (001 §4.4), or GET /parties (the polymorphic list, `kind` null): one page of live parties in
 * display-name order. Free-text `q` searches the folded names (domain/search-text.ts) through the word index.
 */
export const listParties = (s: PartiesServices, kind: PartyKind | null) =>
  defineCommand<ListPartiesInput, PartyList>({
    id: partyAction(kind?.resource ?? 'parties', 'list'),
    access: 'read',
    async run(ctx, { filter, page }) {
      const { q, ...rest } = filter;
      const search = q === undefined ? undefined : (searchPlan(q) ?? undefined);
      if (q !== undefined && search === undefined) throw invalidField('q', 'q holds no word to search for.');
      const result = await s.db.withTenantSession(ctx.tenantId, (sql) =>
        partyStore.list(sql, { ...rest, ...(kind ? { type: kind.type } : {}), search }, page),
      );
      const view = kind ? typedView : baseView;
      return { data: result.records.map(view), pagination: paginationOf(page, result.hasMore, result.total) };
    },
  });
