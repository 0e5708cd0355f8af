import { defineCommand } from '@tessera/platform';
import { RECONCILIATION_SCOPES } from '../config.js';
import { categoryNotAllowed } from '../domain/errors.js';
import { categoryAllowed, type Projection } from '../domain/projection.js';
import type { ReconciliationServices } from '../services.js';
import { auxiliaryStore } from '../storage/auxiliary-store.js';

export const DELETE_AUXILIARY_DATA = 'reconciliation-api.auxiliary.delete';

/**
 * DELETE /{internalIdentityId}/auxiliary/{category} (000 §4.3): 204 and idempotent, also when nothing is stored
 * and also for an unknown identity (nothing exists there either). Outside the projection 403 category_not_allowed.
 */
export const deleteAuxiliaryData = (_s: ReconciliationServices) =>
  defineCommand<{ projection: Projection; internalIdentityId: string; category: string }, { deleted: number }>({
    id: DELETE_AUXILIARY_DATA,
    access: 'write',
    requiredScope: RECONCILIATION_SCOPES.write,
    businessIds: (input, output) => ({
      internalIdentityId: input.internalIdentityId,
      category: input.category,
      ...(output ? { deleted: String(output.deleted) } : {}),
    }),
    async run(ctx, { projection, internalIdentityId, category }) {
      if (!categoryAllowed(category, projection)) throw categoryNotAllowed();
      // The deletion and the command's audit event commit together (issue 13 §7).
      const deleted = await ctx.unitOfWork((sql) => auxiliaryStore.delete(sql, internalIdentityId, category));
      return { deleted };
    },
  });
