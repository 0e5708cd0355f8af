import { AppError, defineCommand } from '@tessera/platform';
import type { TokenServiceContext } from '../context.js';
import { grantClaims } from '../storage/sealed-fields.js';
import { oauthError } from '../domain/oauth-error.js';
import { claimsForScopes, parseScope, pickClaims } from '../domain/scopes.js';
import type { DpopHeader } from '../dpop/token-service-dpop.js';
import { inspectToken, verifyAccessTokenJwt } from '../tokens/inspect-token.js';

const bearerChallenge = (error: string) => ({ 'www-authenticate': `Bearer error="${error}"` });

export interface UserinfoInput {
  accessToken: string;
  /** How the token came: Bearer (header or form) or DPoP (RFC 9449 §7.1). Default Bearer. */
  scheme?: 'Bearer' | 'DPoP';
  /** The request's DPoP header, for the DPoP scheme. */
  dpopProof?: DpopHeader;
  /** GET or POST: the proof's `htm`. */
  httpMethod?: string;
}

const jktOf = (payload: Record<string, unknown>): string | null => {
  const cnf = payload.cnf as { jkt?: unknown } | undefined;
  return typeof cnf?.jkt === 'string' ? cnf.jkt : null;
};

/**
 * OpenID Connect UserInfo (OIDC Core §5.3; 000 §4.4, response "not shown": the standard's). Takes one of our
 * active JWT access tokens holding `openid` and answers `sub` plus the claims its scopes release (§5.4), the
 * service claim when its scope was granted.
 *
 * DPoP (RFC 9449 §7): a DPoP-bound token is accepted only with the DPoP scheme and a proof for this method and
 * URL, with the token's `ath`, signed by its `cnf.jkt` key; presented as a Bearer token it is refused (§7.2).
 */
export function getUserinfo(ctx: TokenServiceContext) {
  return defineCommand<UserinfoInput, Record<string, unknown>>({
    id: 'token-service.userinfo.get',
    access: 'public',
    run: async (cmd, input) => {
      const { accessToken } = input;
      const dpop = input.scheme === 'DPoP';
      const invalid = () =>
        dpop
          ? ctx.dpop.resourceError('invalid_token', 'The access token is invalid.')
          : oauthError('invalid_token', 'The access token is invalid.', {
              status: 401,
              headers: bearerChallenge('invalid_token'),
            });
      const verified = await verifyAccessTokenJwt(ctx, cmd.tenantId, accessToken);
      if (dpop) {
        if (!verified) throw invalid();
        const jkt = jktOf(verified as Record<string, unknown>);
        if (!jkt) throw ctx.dpop.resourceError('invalid_token', 'The access token is not DPoP-bound.');
        // Before the unit of work: the replay state and the nonce key have units of their own.
        await ctx.dpop.verifyResourceRequest(cmd.tenantId, {
          header: input.dpopProof,
          httpMethod: input.httpMethod ?? 'GET',
          httpUrl: `${ctx.issuerFor(cmd.tenantId)}/userinfo`,
          accessToken,
          jkt,
        });
      }
      const found = await ctx.platform.db.withTenant(cmd.tenantId, (sql) =>
        inspectToken(ctx, sql, accessToken, 'access_token', verified),
      );
      if (!found || found.kind !== 'access_token' || found.grant === null) throw invalid();
      if (found.cnfJkt && !dpop) {
        // A DPoP-bound token presented as a bearer token (RFC 9449 §7.2).
        throw ctx.dpop.resourceError('invalid_token', 'The access token is sender-constrained.');
      }
      const scopes = parseScope(found.scope);
      if (!scopes.includes('openid')) {
        const headers = dpop
          ? { 'www-authenticate': ctx.dpop.challenge('insufficient_scope') }
          : bearerChallenge('insufficient_scope');
        throw new AppError('insufficient_scope', 'The access token was not granted the openid scope.', { headers });
      }
      const claims = await grantClaims(ctx, cmd.tenantId, found.grant);
      return { sub: found.subject, ...pickClaims(claims, claimsForScopes(scopes, ctx.serviceClaim)) };
    },
  });
}
