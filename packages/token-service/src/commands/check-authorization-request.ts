import { defineCommand } from '@tessera/platform';
import type { TokenServiceContext } from '../context.js';
import { checkAuthorizationRequest } from '../domain/authorization-request.js';

export const PORTAL_CHECK_SCOPE = 'token-service:authorization-check';

export type AuthorizationRequestVerdict =
  | {
      valid: true;
      clientId: string;
      /** The client's display name, for the sign-in page (issue 14 §7); absent when none is configured. */
      clientName?: string;
      redirectUri: string;
      scope: string;
      codeChallenge: string;
    }
  | { valid: false; error: string; error_description: string; redirectUri: string | null; state: string | null };

/**
 * For the portal (flows.md step 2): checks a relying party's authorization request exactly as GET /authorize
 * will, before the portal starts a wallet session for it. Service to service: the caller's token must hold
 * `token-service:authorization-check`.
 */
export function checkAuthorizationRequestCommand(ctx: TokenServiceContext) {
  return defineCommand<{ params: URLSearchParams }, AuthorizationRequestVerdict>({
    id: 'token-service.authorization.check-request',
    access: 'read',
    requiredScope: PORTAL_CHECK_SCOPE,
    businessIds: (input) => ({ clientId: input.params.get('client_id')?.slice(0, 200) ?? '' }),
    run: async (cmd, { params }) => {
      const check = checkAuthorizationRequest(params, cmd.tenantId, ctx.clients, {
        dpopEnabled: ctx.config.dpop.enabled,
      });
      if (check.kind === 'ok') {
        const r = check.request;
        return {
          valid: true,
          clientId: r.client.clientId,
          ...(r.client.clientName ? { clientName: r.client.clientName } : {}),
          redirectUri: r.redirectUri,
          scope: r.scope,
          codeChallenge: r.codeChallenge,
        };
      }
      if (check.kind === 'no_redirect')
        return {
          valid: false,
          error: check.error,
          error_description: check.description,
          redirectUri: null,
          state: null,
        };
      return {
        valid: false,
        error: check.error,
        error_description: check.description,
        redirectUri: check.redirectUri,
        state: check.state,
      };
    },
  });
}
