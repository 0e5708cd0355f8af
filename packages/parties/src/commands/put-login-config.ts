import { defineCommand } from '@tessera/platform';
import { partyNotFound } from '../domain/errors.js';
import { mergeLoginConfig, type LoginConfig } from '../domain/login-config.js';
import type { PartiesServices } from '../services.js';
import { loginConfigStore } from '../storage/login-config-store.js';
import { partyStore } from '../storage/party-store.js';

/** PUT /services/{id}/login-config (001 §4.4): a null or omitted field keeps the stored value. */
export const putLoginConfig = (s: PartiesServices) =>
  defineCommand<{ serviceId: string; patch: Partial<Record<keyof LoginConfig, unknown>> }, LoginConfig>({
    id: 'party.services.put-login-config',
    access: 'write',
    businessIds: (input) => ({ partyId: input.serviceId }),
    async run(ctx, { serviceId, patch }) {
      return ctx.unitOfWork(async (sql) => {
        // The service row's lock orders concurrent PUTs, each merging onto what the previous one stored.
        if (!(await partyStore.lock(sql, serviceId, 'SERVICE'))) throw partyNotFound();
        const stored = await loginConfigStore.get(sql, serviceId);
        const config = mergeLoginConfig(stored.config, patch);
        await loginConfigStore.put(sql, serviceId, config, s.clock.now());
        return config;
      });
    },
  });
