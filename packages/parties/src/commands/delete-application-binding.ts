import { defineCommand } from '@tessera/platform';
import { partyNotFound } from '../domain/errors.js';
import type { PartiesServices } from '../services.js';
import { bindingStore } from '../storage/binding-store.js';
import type { BindingKey } from './get-application-binding.js';

/** DELETE /identities/{identityId}/applications/{applicationId} (001 §4.4: "remove"): 204, or 404 when absent. */
export const deleteApplicationBinding = (_s: PartiesServices) =>
  defineCommand<BindingKey, void>({
    id: 'party.identity-applications.delete',
    access: 'write',
    businessIds: (input) => ({ ...input }),
    async run(ctx, { identityId, applicationId }) {
      await ctx.unitOfWork(async (sql) => {
        if (!(await bindingStore.remove(sql, identityId, applicationId)))
          throw partyNotFound('binding of this identity to this application');
      });
    },
  });
