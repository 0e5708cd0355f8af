import { defineCommand } from '@tessera/platform';
import { RECONCILIATION_SCOPES } from '../config.js';
import { identityNotFound } from '../domain/errors.js';
import { projectClaims, type Projection } from '../domain/projection.js';
import type { ReconciliationServices } from '../services.js';

export const GET_IDENTITY_CLAIMS = 'reconciliation-api.identities.claims';

/** GET /{internalIdentityId}/claims (000 §4.3): a flat object of the projected claims only; 404 when unknown. */
export const getIdentityClaims = (s: ReconciliationServices) =>
  defineCommand<{ projection: Projection; internalIdentityId: string }, Record<string, unknown>>({
    id: GET_IDENTITY_CLAIMS,
    access: 'read',
    requiredScope: RECONCILIATION_SCOPES.read,
    businessIds: (input) => ({ internalIdentityId: input.internalIdentityId }),
    async run(ctx, { projection, internalIdentityId }) {
      const identity = await s.platform.db.withTenant(ctx.tenantId, (sql) =>
        s.identities.get({ tenantId: ctx.tenantId, sql }, internalIdentityId),
      );
      if (!identity) throw identityNotFound();
      return projectClaims(identity.claims, projection);
    },
  });
