import { defineCommand } from '@tessera/platform';
import { partyNotFound } from '../domain/errors.js';
import { paginationOf, type PageRequest } from '../domain/pagination.js';
import { typedView } from '../domain/party-record.js';
import type { PartiesServices } from '../services.js';
import { partyStore } from '../storage/party-store.js';
import type { PartyList } from './list-parties.js';

/**
 * GET /organizationunits/{id}/children and /members (001 §4.4): the live units directly below the unit, or the
 * live persons whose home unit it is, one page in display-name order; 404 when the unit is not live.
 */
export const listUnitContents = (s: PartiesServices, contents: 'children' | 'members') =>
  defineCommand<{ unitId: string; page: PageRequest }, PartyList>({
    id: `party.organizationunits.list-${contents}`,
    access: 'read',
    businessIds: (input) => ({ partyId: input.unitId }),
    async run(ctx, { unitId, page }) {
      const type = contents === 'children' ? 'ORGANIZATION_UNIT' : 'PERSON';
      const result = await s.db.withTenantSession(ctx.tenantId, async (sql) => {
        if (!(await partyStore.get(sql, unitId, 'ORGANIZATION_UNIT'))) return null;
        return partyStore.list(sql, { type, organizationUnitId: unitId }, page);
      });
      if (!result) throw partyNotFound();
      return { data: result.records.map(typedView), pagination: paginationOf(page, result.hasMore, result.total) };
    },
  });
