import { defineCommand } from '@tessera/platform';
import type { TokenServiceContext } from '../context.js';
import type { Client } from '../clients/client-registry.js';
import { inspectToken, verifyAccessTokenJwt } from '../tokens/inspect-token.js';

/**
 * Token introspection (RFC 7662, 000 §4.4) for access and refresh tokens alike. The caller is an authenticated
 * client; a token is shown active only to the client it was issued to or to a client named in its audience (a
 * resource server); for anyone else, and for a revoked, expired, foreign or unknown token, the answer is only
 * `{ "active": false }` (RFC 7662 §2.2).
 */
export function introspectToken(ctx: TokenServiceContext) {
  return defineCommand<{ client: Client; token: string; hint: string | undefined }, Record<string, unknown>>({
    id: 'token-service.introspection.introspect',
    access: 'public',
    businessIds: (input) => ({ clientId: input.client.clientId }),
    run: async (cmd, { client, token, hint }) => {
      const verified = await verifyAccessTokenJwt(ctx, cmd.tenantId, token);
      const found = await ctx.platform.db.withTenant(cmd.tenantId, (sql) =>
        inspectToken(ctx, sql, token, hint, verified),
      );
      if (!found) return { active: false };
      const maySee =
        found.clientId === client.clientId ||
        (found.kind === 'access_token' && found.audience.includes(client.clientId));
      if (!maySee) return { active: false };
      const response: Record<string, unknown> = {
        active: true,
        sub: found.subject ?? found.clientId,
        client_id: found.clientId,
        scope: found.scope,
        exp: found.exp,
        iat: found.iat,
        iss: ctx.issuerFor(cmd.tenantId),
        token_type: found.kind === 'access_token' ? (found.cnfJkt ? 'DPoP' : 'Bearer') : 'refresh_token',
      };
      if (found.kind === 'access_token') {
        response.aud = found.audience.length === 1 ? found.audience[0] : found.audience;
        response.jti = found.jti;
        if (found.cnfJkt) response.cnf = { jkt: found.cnfJkt };
      }
      return response;
    },
  });
}
