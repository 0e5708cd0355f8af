import { defineCommand } from '@tessera/platform';
import { duplicate } from '../domain/errors.js';
import { isSeededRelationshipType } from '../domain/relationship-types.js';
import type { PartiesServices } from '../services.js';
import { relationshipStore } from '../storage/relationship-store.js';
import { nameDuplicate } from './duplicates.js';
import type { RelationshipTypeView } from './list-relationship-types.js';

/** POST /relationship-types: registers a type in the tenant's catalog; 409 when the code is taken. */
export const registerRelationshipType = (s: PartiesServices) =>
  defineCommand<{ code: string; description?: string | undefined }, RelationshipTypeView>({
    id: 'party.relationship-types.register',
    access: 'write',
    businessIds: (input) => ({ relationshipType: input.code }),
    async run(ctx, { code, description }) {
      if (isSeededRelationshipType(code)) throw duplicate('This relationship type is in the catalog already.', 'code');
      try {
        await ctx.unitOfWork((sql) => relationshipStore.registerType(sql, code, description ?? null, s.clock.now()));
      } catch (error) {
        throw nameDuplicate(error);
      }
      return { code, description: description ?? null, seeded: false };
    },
  });
