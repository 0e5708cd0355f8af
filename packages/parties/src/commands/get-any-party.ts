import { defineCommand } from '@tessera/platform';
import { partyNotFound } from '../domain/errors.js';
import { loadable } from '../domain/includes.js';
import type { Include } from '../domain/party-kinds.js';
import { baseView, toFields } from '../domain/party-record.js';
import type { PartiesServices } from '../services.js';
import { partyStore } from '../storage/party-store.js';

/**
 * GET /parties/{id} (001 §4.4): any live party, as its base (type, subtype, display name, origin, unit); its typed
 * fields only with include=specializations, its associations only as included. One statement.
 */
export const getAnyParty = (s: PartiesServices) =>
  defineCommand<{ id: string; includes: readonly Include[] }, Record<string, unknown>>({
    id: 'party.parties.get',
    access: 'read',
    businessIds: (input) => ({ partyId: input.id }),
    async run(ctx, { id, includes }) {
      const found = await s.db.withTenantSession(ctx.tenantId, (sql) =>
        partyStore.get(sql, id, null, loadable(includes)),
      );
      if (!found) throw partyNotFound();
      const view = baseView(found.record);
      if (includes.includes('specializations')) view.specializations = toFields(found.record);
      return { ...view, ...found.included };
    },
  });
