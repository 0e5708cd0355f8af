import { defineCommand } from '@tessera/platform';
import { partyNotFound } from '../domain/errors.js';
import { EMPTY_LOGIN_CONFIG, type LoginConfig } from '../domain/login-config.js';
import type { PartiesServices } from '../services.js';
import { loginConfigStore } from '../storage/login-config-store.js';

/** GET /services/{id}/login-config (001 §4.4); a service without one accepts nothing (domain/login-config.ts). */
export const getLoginConfig = (s: PartiesServices) =>
  defineCommand<{ serviceId: string }, LoginConfig>({
    id: 'party.services.get-login-config',
    access: 'read',
    businessIds: (input) => ({ partyId: input.serviceId }),
    async run(ctx, { serviceId }) {
      const found = await s.db.withTenantSession(ctx.tenantId, (sql) => loginConfigStore.get(sql, serviceId));
      if (!found.found) throw partyNotFound();
      return found.config ?? EMPTY_LOGIN_CONFIG;
    },
  });
