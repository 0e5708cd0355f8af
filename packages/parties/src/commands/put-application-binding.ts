import { defineCommand } from '@tessera/platform';
import { partyNotFound } from '../domain/errors.js';
import { checkValidity } from '../domain/validity.js';
import type { PartiesServices } from '../services.js';
import { bindingStore } from '../storage/binding-store.js';
import { partyStore } from '../storage/party-store.js';
import type { BindingKey } from './get-application-binding.js';

export interface PutBindingInput extends BindingKey {
  capabilities: string[];
  authenticationMethods: string[];
  applicationRole?: string | undefined;
  validFrom?: string | undefined;
  validTo?: string | undefined;
}

/**
 * PUT /identities/{identityId}/applications/{applicationId} (001 §4.4: "set"): the binding as given, whole; 201
 * when it is new, 200 when it replaced one. The identity is the identity store's (404 when the tenant has none with
 * the id); the application is a live service of the tenant (404 otherwise).
 */
export const putApplicationBinding = (s: PartiesServices) =>
  defineCommand<PutBindingInput, { view: Record<string, unknown>; created: boolean }>({
    id: 'party.identity-applications.put',
    access: 'write',
    businessIds: (input, output): Record<string, string> => ({
      identityId: input.identityId,
      applicationId: input.applicationId,
      ...(output ? { outcome: output.created ? 'created' : 'replaced' } : {}),
    }),
    async run(ctx, input) {
      const window = checkValidity({ validFrom: input.validFrom ?? null, validTo: input.validTo ?? null });
      const result = await ctx.unitOfWork(async (sql) => {
        if (!(await s.identities.get({ tenantId: ctx.tenantId, sql }, input.identityId)))
          throw partyNotFound('identity');
        if (!(await partyStore.lock(sql, input.applicationId, 'SERVICE'))) throw partyNotFound('application (service)');
        return bindingStore.put(
          sql,
          {
            identityId: input.identityId,
            applicationId: input.applicationId,
            capabilities: [...new Set(input.capabilities)],
            authenticationMethods: [...new Set(input.authenticationMethods)],
            applicationRole: input.applicationRole ?? null,
            ...window,
          },
          s.clock.now(),
        );
      });
      return { view: result.view as Record<string, unknown>, created: result.created };
    },
  });
