import { defineCommand } from '@tessera/platform';
import { partyNotFound } from '../domain/errors.js';
import { loadable } from '../domain/includes.js';
import type { Include, PartyKind } from '../domain/party-kinds.js';
import { typedView } from '../domain/party-record.js';
import type { PartiesServices } from '../services.js';
import { partyStore } from '../storage/party-store.js';
import { partyAction } from './party-command.js';

/** GET /{resource}/{id} (001 §4.4): the live party of this type with the associations `include` names. */
export const getParty = (s: PartiesServices, kind: PartyKind) =>
  defineCommand<{ id: string; includes: readonly Include[] }, Record<string, unknown>>({
    id: partyAction(kind.resource, 'get'),
    access: 'read',
    businessIds: (input) => ({ partyId: input.id }),
    async run(ctx, { id, includes }) {
      // One statement (the includes are subqueries of it): a session unit, no transaction.
      const found = await s.db.withTenantSession(ctx.tenantId, (sql) =>
        partyStore.get(sql, id, kind.type, loadable(includes)),
      );
      if (!found) throw partyNotFound();
      return { ...typedView(found.record), ...found.included };
    },
  });
