import { defineCommand, isAppError, type CommandContext } from '@tessera/platform';
import { RECONCILIATION_SCOPES } from '../config.js';
import { identityNotFound } from '../domain/errors.js';
import { parseIdentifierType } from '../domain/identifier-type.js';
import type { Projection } from '../domain/projection.js';
import { summaryView, type IdentitySummaryView } from '../domain/views.js';
import type { ReconciliationServices } from '../services.js';

export const LOOKUP_IDENTITY = 'reconciliation-api.identities.lookup';

export interface LookupIdentityInput {
  projection: Projection;
  identifierHash: string;
  identifierType: string;
}

/**
 * POST /lookup (000 §4.3): the identity whose identifier of the type has this HMAC under the tenant's shared key.
 * Exactly one match answers 200; none, or several (decision: never guess between identities), 404
 * identity_not_found. Each lookup is audited as `external_api_lookup` with the client id (000 §6): the identity
 * id when one was found, never the hash.
 */
export const lookupIdentity = (s: ReconciliationServices) =>
  defineCommand<LookupIdentityInput, IdentitySummaryView>({
    id: LOOKUP_IDENTITY,
    access: 'read',
    requiredScope: RECONCILIATION_SCOPES.read,
    audit: 'self',
    async run(ctx, input) {
      let outcome: string;
      let found: IdentitySummaryView | null;
      try {
        const type = parseIdentifierType(input.identifierType, s.serviceClaim);
        // Batched with the tenant's concurrent lookups (storage/identity-lookups.ts); never cached.
        const match = await s.lookups.find(ctx.tenantId, {
          type,
          hash: input.identifierHash,
          categories: input.projection.categories,
        });
        const matches = match.identities.length;
        found = matches === 1 ? summaryView(match.identities[0]!, match.categories, input.projection) : null;
        outcome = matches === 0 ? 'not_found' : matches === 1 ? 'found' : 'ambiguous';
      } catch (error) {
        await auditLookup(s, ctx, input, isAppError(error) ? (error.wireCode ?? error.code) : 'server_error', null);
        throw error;
      }
      await auditLookup(s, ctx, input, outcome, found);
      if (!found) throw identityNotFound();
      return found;
    },
  });

async function auditLookup(
  s: ReconciliationServices,
  ctx: CommandContext,
  input: LookupIdentityInput,
  outcome: string,
  found: IdentitySummaryView | null,
): Promise<void> {
  await s.platform.audit.append({
    tenantId: ctx.tenantId,
    type: 'external_api_lookup',
    commandId: LOOKUP_IDENTITY,
    principalId: ctx.principal?.id ?? null,
    result: found ? 'success' : 'failure',
    correlationId: ctx.correlationId,
    traceId: ctx.trace?.traceId,
    businessIds: found ? { internalIdentityId: found.internalIdentityId } : {},
    details: { client_id: input.projection.clientId, identifier_type: input.identifierType.slice(0, 32), outcome },
    occurredAt: s.clock.now(),
  });
}
