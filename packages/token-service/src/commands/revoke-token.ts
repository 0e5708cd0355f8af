import { defineCommand } from '@tessera/platform';
import type { TokenServiceContext } from '../context.js';
import type { Client } from '../clients/client-registry.js';
import { grantStore } from '../storage/grant-store.js';
import { inspectToken, verifyAccessTokenJwt } from '../tokens/inspect-token.js';

/**
 * Token revocation (RFC 7009, 000 §4.4). Always answers 200 (000 §4.4), whether or not the token existed or was
 * already revoked. Revoking a refresh token revokes its grant, so every access token of the family becomes
 * inactive (RFC 7009 §2.1); revoking an access token records its jti until it expires. A token issued to
 * another client is left untouched (RFC 7009 §2.1 "refused"), with the same 200 so that the answer reveals
 * nothing; the audit event records the refusal.
 */
export function revokeToken(ctx: TokenServiceContext) {
  return defineCommand<
    { client: Client; token: string; hint: string | undefined },
    { outcome: 'revoked' | 'not_found' | 'foreign' }
  >({
    id: 'token-service.revocation.revoke',
    access: 'public',
    businessIds: (input, output) => ({ clientId: input.client.clientId, outcome: output?.outcome ?? 'unknown' }),
    run: async (cmd, { client, token, hint }) => {
      const verified = await verifyAccessTokenJwt(ctx, cmd.tenantId, token);
      // The revocation and the execution's audit event commit together (issue 13 §7).
      return cmd.unitOfWork(async (sql) => {
        const found = await inspectToken(ctx, sql, token, hint, verified);
        if (!found) return { outcome: 'not_found' as const };
        if (found.clientId !== client.clientId) return { outcome: 'foreign' as const };
        const now = ctx.clock.now();
        if (found.kind === 'refresh_token') await grantStore.revokeGrant(sql, found.grant.id, 'revoked_by_client', now);
        else await grantStore.revokeAccessToken(sql, found.jti, new Date(found.exp * 1000));
        return { outcome: 'revoked' as const };
      });
    },
  });
}
