import { defineCommand } from '@tessera/platform';
import { partyNotFound } from '../domain/errors.js';
import type { PartiesServices } from '../services.js';
import { bindingStore } from '../storage/binding-store.js';

export interface BindingKey {
  identityId: string;
  applicationId: string;
}

/** GET /identities/{identityId}/applications/{applicationId} (001 §4.4): the binding, or 404. */
export const getApplicationBinding = (s: PartiesServices) =>
  defineCommand<BindingKey, Record<string, unknown>>({
    id: 'party.identity-applications.get',
    access: 'read',
    businessIds: (input) => ({ ...input }),
    async run(ctx, { identityId, applicationId }) {
      const view = await s.db.withTenantSession(ctx.tenantId, (sql) =>
        bindingStore.get(sql, identityId, applicationId),
      );
      if (!view) throw partyNotFound('binding of this identity to this application');
      return view as Record<string, unknown>;
    },
  });
