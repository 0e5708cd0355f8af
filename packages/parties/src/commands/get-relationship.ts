import { defineCommand } from '@tessera/platform';
import { partyNotFound } from '../domain/errors.js';
import type { PartiesServices } from '../services.js';
import { relationshipStore } from '../storage/relationship-store.js';

/** GET /relationships/{id} (001 §4.4). */
export const getRelationship = (s: PartiesServices) =>
  defineCommand<{ id: string }, Record<string, unknown>>({
    id: 'party.relationships.get',
    access: 'read',
    businessIds: (input) => ({ relationshipId: input.id }),
    async run(ctx, { id }) {
      const view = await s.db.withTenantSession(ctx.tenantId, (sql) => relationshipStore.get(sql, id));
      if (!view) throw partyNotFound('relationship');
      return view as Record<string, unknown>;
    },
  });
