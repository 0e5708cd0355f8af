import { AppError, defineCommand } from '@tessera/platform';
import type { TokenServiceContext } from '../context.js';
import { oauthError } from '../domain/oauth-error.js';
import { claimsForScopes, parseScope, pickClaims } from '../domain/scopes.js';
import { inspectToken, verifyAccessTokenJwt } from '../tokens/inspect-token.js';

const bearerChallenge = (error: string) => ({ 'www-authenticate': `Bearer error="${error}"` });

/**
 * OpenID Connect UserInfo (OIDC Core §5.3; 000 §4.4, response "not shown": the standard's). Takes one of our
 * active JWT access tokens holding `openid` and answers `sub` plus the claims its scopes release (§5.4), the
 * service claim when its scope was granted.
 */
export function getUserinfo(ctx: TokenServiceContext) {
  return defineCommand<{ accessToken: string }, Record<string, unknown>>({
    id: 'token-service.userinfo.get',
    access: 'public',
    run: async (cmd, { accessToken }) => {
      const verified = await verifyAccessTokenJwt(ctx, cmd.tenantId, accessToken);
      const found = await ctx.platform.db.withTenant(cmd.tenantId, (sql) => inspectToken(ctx, sql, accessToken, 'access_token', verified));
      if (!found || found.kind !== 'access_token' || found.grant === null) {
        throw oauthError('invalid_token', 'The access token is invalid.', { status: 401, headers: bearerChallenge('invalid_token') });
      }
      if (found.cnfJkt) {
        // A DPoP-bound token presented as a bearer token (RFC 9449 §7.2).
        throw oauthError('invalid_token', 'The access token is sender-constrained.', { status: 401, headers: { 'www-authenticate': 'DPoP error="invalid_token"' } });
      }
      const scopes = parseScope(found.scope);
      if (!scopes.includes('openid')) {
        throw new AppError('insufficient_scope', 'The access token was not granted the openid scope.', { headers: bearerChallenge('insufficient_scope') });
      }
      return { sub: found.subject, ...pickClaims(found.grant.claims, claimsForScopes(scopes, ctx.serviceClaim)) };
    },
  });
}
