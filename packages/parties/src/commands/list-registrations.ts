import { defineCommand } from '@tessera/platform';
import { partyNotFound } from '../domain/errors.js';
import type { PartiesServices } from '../services.js';
import { registrationStore } from '../storage/registration-store.js';

/** GET /organizations/{id}/registrations (001 §4.4): every registration of the organization. */
export const listRegistrations = (s: PartiesServices) =>
  defineCommand<{ organizationId: string }, { data: unknown[] }>({
    id: 'party.organizations.list-registrations',
    access: 'read',
    businessIds: (input) => ({ partyId: input.organizationId }),
    async run(ctx, { organizationId }) {
      const views = await s.db.withTenantSession(ctx.tenantId, (sql) => registrationStore.list(sql, organizationId));
      if (views === null) throw partyNotFound();
      return { data: views };
    },
  });
