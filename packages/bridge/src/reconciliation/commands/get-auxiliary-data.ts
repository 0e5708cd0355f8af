import { defineCommand } from '@tessera/platform';
import { RECONCILIATION_SCOPES } from '../config.js';
import { auxiliaryNotFound, identityNotFound } from '../domain/errors.js';
import { categoryAllowed, type Projection } from '../domain/projection.js';
import type { ReconciliationServices } from '../services.js';
import { auxiliaryStore } from '../storage/auxiliary-store.js';

export const GET_AUXILIARY_DATA = 'reconciliation-api.auxiliary.get';

export interface AuxiliaryDataView {
  category: string;
  data: Record<string, unknown>;
  storedBy: string;
  storedAt: string;
  expiresAt: string | null;
}

/**
 * GET /{internalIdentityId}/auxiliary/{category} (000 §4.3). A category outside the client's projection answers
 * 404 auxiliary_not_found, exactly like an empty one (000 §7 leaves 403 or 404 open; 404 tells the client nothing
 * about categories it may not see). Expired data is gone. An unknown identity is 404 identity_not_found.
 */
export const getAuxiliaryData = (s: ReconciliationServices) =>
  defineCommand<{ projection: Projection; internalIdentityId: string; category: string }, AuxiliaryDataView>({
    id: GET_AUXILIARY_DATA,
    access: 'read',
    requiredScope: RECONCILIATION_SCOPES.read,
    businessIds: (input) => ({ internalIdentityId: input.internalIdentityId, category: input.category }),
    async run(ctx, { projection, internalIdentityId, category }) {
      if (!categoryAllowed(category, projection)) throw auxiliaryNotFound();
      const now = s.clock.now();
      const at = { tenantId: ctx.tenantId, identityId: internalIdentityId, category };
      const found = await s.platform.db.withTenant(ctx.tenantId, async (sql) => {
        const row = await auxiliaryStore.getLive(sql, internalIdentityId, category, now);
        if (!row)
          return (await s.identities.get({ tenantId: ctx.tenantId, sql }, internalIdentityId))
            ? 'absent'
            : 'no_identity';
        return { row, canonical: await s.sealer.open(row.dataSealed, at, sql) };
      });
      if (found === 'no_identity') throw identityNotFound();
      if (found === 'absent') throw auxiliaryNotFound();
      return {
        category,
        data: JSON.parse(found.canonical) as Record<string, unknown>,
        storedBy: found.row.storedBy,
        storedAt: found.row.storedAt.toISOString(),
        expiresAt: found.row.expiresAt?.toISOString() ?? null,
      };
    },
  });
