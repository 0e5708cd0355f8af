import { defineCommand } from '@tessera/platform';
import { RECONCILIATION_SCOPES } from '../config.js';
import { identityNotFound } from '../domain/errors.js';
import type { Projection } from '../domain/projection.js';
import { identityView, type IdentityView } from '../domain/views.js';
import type { ReconciliationServices } from '../services.js';
import { auxiliaryStore } from '../storage/auxiliary-store.js';

export const GET_IDENTITY = 'reconciliation-api.identities.get';

/** GET /{internalIdentityId} (000 §4.3, §2.5): the projected identity data with its bindings; 404 when unknown. */
export const getIdentity = (s: ReconciliationServices) =>
  defineCommand<{ projection: Projection; internalIdentityId: string }, IdentityView>({
    id: GET_IDENTITY,
    access: 'read',
    requiredScope: RECONCILIATION_SCOPES.read,
    businessIds: (input) => ({ internalIdentityId: input.internalIdentityId }),
    async run(ctx, { projection, internalIdentityId }) {
      const now = s.clock.now();
      const view = await s.platform.db.withTenant(ctx.tenantId, async (sql) => {
        const identity = await s.identities.get({ tenantId: ctx.tenantId, sql }, internalIdentityId);
        if (!identity) return null;
        return identityView(
          identity,
          await auxiliaryStore.liveCategories(sql, internalIdentityId, projection.categories, now),
          projection,
        );
      });
      if (!view) throw identityNotFound();
      return view;
    },
  });
