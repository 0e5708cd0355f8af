import { AppError, defineCommand } from '@tessera/platform';
import type { CallbackClaims } from '../crypto/callback-token.js';
import { flattenGroups, type ContributionGroup } from '../domain/contribution.js';
import { DEFERRED_PHASE } from '../domain/phases.js';
import type { IssuanceServices } from '../services.js';
import { invocationStore } from '../storage/invocation-store.js';
import { spentTokenStore } from '../storage/spent-token-store.js';
import { runContribution, type ContributeOutput } from './contribute-attributes.js';
import { CONTRIBUTE_VIA_CALLBACK } from './ids.js';

export interface ContributeViaCallbackInput {
  /** The claims of a capability token whose MAC and expiry have been verified (http/callback-route.ts). */
  claims: CallbackClaims;
  correlationId: string;
  groups: ContributionGroup[];
}

export const invalidCallbackToken = (message = 'The callback token is not valid for this request.') =>
  new AppError('invalid_token', message);

/**
 * POST /sessions/{correlationId}/callbacks/{callbackToken} (001 §4.2): no bearer; the verified capability token
 * must name this session, every group must come from the token's contributor and run in OID4VCI_DEFERRED, and the
 * token is spent in the same unit of work as the contribution (a replay, or any refusal, writes nothing).
 */
export const contributeViaCallback = (s: IssuanceServices) =>
  defineCommand<ContributeViaCallbackInput, ContributeOutput>({
    id: CONTRIBUTE_VIA_CALLBACK,
    // Authenticated by the capability token, not by a principal's roles (001 §5).
    access: 'public',
    businessIds: (input, output) => ({
      correlationId: input.correlationId,
      contributorId: input.claims.contributorId,
      tokenId: input.claims.jti,
      ...(output ? { attributes: String(output.accepted_attributes), status: output.status } : {}),
    }),
    async run(ctx, input) {
      const { claims } = input;
      if (claims.correlationId !== input.correlationId) throw invalidCallbackToken();
      input.groups.forEach((g, i) => {
        if (g.contributorId !== claims.contributorId)
          throw new AppError('policy_denied', 'The callback token is for another contributor.', {
            field: `groups[${i}].contributorId`,
          });
      });
      const contribution = flattenGroups(input.groups, DEFERRED_PHASE);
      return runContribution(s, ctx, input.correlationId, contribution, async (sql, now) => {
        if (!(await spentTokenStore.spend(sql, claims.jti, claims.correlationId, now, new Date(claims.exp * 1000))))
          throw invalidCallbackToken('The callback token has been used already.');
        // The invocation that answered 202 has now contributed (its delivery status, 001 §4.5).
        await invocationStore.callbackArrived(sql, claims.correlationId, claims.contributorId, now);
      });
    },
  });
