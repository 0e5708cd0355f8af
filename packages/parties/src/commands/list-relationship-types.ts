import { defineCommand } from '@tessera/platform';
import { SEEDED_RELATIONSHIP_TYPES } from '../domain/relationship-types.js';
import type { PartiesServices } from '../services.js';
import { relationshipStore } from '../storage/relationship-store.js';

export interface RelationshipTypeView {
  code: string;
  description: string | null;
  seeded: boolean;
}

/** GET /relationship-types: the tenant's catalog, the seeded types first. */
export const listRelationshipTypes = (s: PartiesServices) =>
  defineCommand<Record<string, never>, { data: RelationshipTypeView[] }>({
    id: 'party.relationship-types.list',
    access: 'read',
    async run(ctx) {
      const registered = await s.db.withTenantSession(ctx.tenantId, (sql) => relationshipStore.registeredTypes(sql));
      return {
        data: [
          ...SEEDED_RELATIONSHIP_TYPES.map((t) => ({ ...t, seeded: true })),
          ...registered.map((t) => ({ ...t, seeded: false })),
        ],
      };
    },
  });
