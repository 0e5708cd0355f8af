import { defineCommand } from '@tessera/platform';
import type { TokenServiceContext } from '../context.js';
import type { Client } from '../clients/client-registry.js';
import { oauthError } from '../domain/oauth-error.js';
import { formatScope, parseScope } from '../domain/scopes.js';
import { newGrant, createAccessToken, type IssuedTokens } from '../tokens/issue-tokens.js';
import type { DpopHeader } from '../dpop/token-service-dpop.js';

/**
 * The client_credentials grant (RFC 6749 §4.4), so that third parties can call the external reconciliation API
 * with tokens of this server (000 §5). No refresh token; sub is the client id. The requested scopes must all be
 * registered for the client (absent: all of them). With DPoP on, a proof binds the access token to its key
 * (RFC 9449 §5).
 */
export function issueClientCredentialsToken(ctx: TokenServiceContext) {
  return defineCommand<{ client: Client; scope: string | undefined; dpopProof?: DpopHeader }, IssuedTokens>({
    id: 'token-service.token.client-credentials',
    access: 'public',
    businessIds: (input) => ({ clientId: input.client.clientId }),
    run: async (cmd, { client, scope, dpopProof }) => {
      if (!client.grantTypes.includes('client_credentials'))
        throw oauthError('unauthorized_client', 'The client may not use the client_credentials grant.');
      const asked = scope === undefined ? [...client.scopes] : parseScope(scope);
      if (asked.some((s) => !client.scopes.includes(s) || s === 'openid' || s === 'offline_access')) {
        throw oauthError('invalid_scope', 'A requested scope is not allowed for this client.');
      }
      const dpopJkt = await ctx.dpop.verifyTokenRequest(
        cmd.tenantId,
        `${ctx.issuerFor(cmd.tenantId)}/token`,
        dpopProof,
      );
      const now = ctx.clock.now();
      const grant = newGrant({
        clientId: client.clientId,
        subject: client.clientId,
        scope: formatScope(asked),
        acr: null,
        amr: [],
        authTime: null,
        claims: {},
        dpopJkt,
        createdAt: now,
        expiresAt: new Date(now.getTime() + client.accessTokenTtlSeconds * 1000),
      });
      // A client_credentials token is not stored: its grant id only names it, and it cannot be part of a family.
      // The client's configured roles go into the platform's roles claim (an administration client of its tenant).
      const roles = client.roles.length > 0 ? { [ctx.platform.config.auth.rolesClaim]: [...client.roles] } : {};
      const accessToken = await createAccessToken(
        ctx,
        cmd.tenantId,
        client,
        { ...grant, id: grant.id },
        grant.scope,
        now,
        roles,
      );
      return {
        access_token: accessToken,
        token_type: dpopJkt ? 'DPoP' : 'Bearer',
        expires_in: client.accessTokenTtlSeconds,
        scope: grant.scope,
      };
    },
  });
}
