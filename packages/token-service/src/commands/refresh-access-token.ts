import { defineCommand, type ExecutionContext } from '@tessera/platform';
import type { TokenServiceContext } from '../context.js';
import type { Client } from '../clients/client-registry.js';
import { oauthError } from '../domain/oauth-error.js';
import { hashToken, newOpaqueToken } from '../domain/random.js';
import { formatScope, parseScope } from '../domain/scopes.js';
import { grantStore, type Grant, type RefreshToken } from '../storage/grant-store.js';
import { dpopBindingError } from '../domain/dpop-binding.js';
import type { DpopHeader } from '../dpop/token-service-dpop.js';
import { createAccessToken, type IssuedTokens } from '../tokens/issue-tokens.js';

export interface RefreshInput {
  client: Client;
  refreshToken: string;
  scope: string | undefined;
  /** The request's DPoP header (RFC 9449 §5); looked at only when DPoP is on. */
  dpopProof?: DpopHeader;
}

/**
 * Why a rotation that changed nothing was refused, from the token and grant as the statement found them, in the
 * order of the checks. A token that passed every check had been rotated already (or was rotated by a concurrent
 * refresh that won, or, within the grace window, its successor was used): a reuse, which revokes the whole grant
 * (RFC 9700 §4.14.2). The revocation and the execution's audit event commit together (issue 13 §7).
 */
async function refusal(
  cmd: ExecutionContext,
  found: { token: RefreshToken; grant: Grant } | null,
  input: { client: Client; asked: string[] | null; proofJkt: string | null; now: Date },
): Promise<Error> {
  if (!found || found.token.clientId !== input.client.clientId)
    return oauthError('invalid_grant', 'The refresh token is invalid.');
  const { token, grant } = found;
  if (grant.revokedAt !== null) return oauthError('invalid_grant', 'The refresh token was revoked.');
  if (token.expiresAt.getTime() <= input.now.getTime())
    return oauthError('invalid_grant', 'The refresh token has expired.');
  const binding = dpopBindingError(grant.dpopJkt, input.proofJkt);
  if (binding) return oauthError('invalid_dpop_proof', binding);
  if (input.client.secret === null && grant.dpopJkt === null) {
    return oauthError('invalid_grant', 'A public client may refresh only a DPoP-bound grant.');
  }
  const granted = parseScope(token.scope);
  if (input.asked?.some((s) => !granted.includes(s)))
    return oauthError('invalid_scope', 'The requested scope exceeds the granted scope.');
  const reuse = oauthError('invalid_grant', 'The refresh token was already used.');
  await cmd.unitOfWork((sql) => grantStore.revokeGrant(sql, grant.id, 'refresh_token_reuse', input.now), {
    answers: reuse,
  });
  return reuse;
}

/**
 * The refresh_token grant (RFC 6749 §6, 000 §3.3): the token is rotated on every use; a reuse of a rotated
 * token (including a lost race between concurrent refreshes) revokes the whole grant, its refresh and access
 * tokens (RFC 9700 §4.14.2). A narrower scope may be asked for; a wider one is invalid_scope. The response carries
 * no ID token (000 §4.4).
 *
 * The grace window (`refreshTokenReuseGraceSeconds`, off by default, issue 13 §7): the rotated token presented again
 * within the window of its first rotation, while its successor is unused, is the retry of a request whose answer
 * was lost (a crash, an undrained restart, a connection cut after the commit): it gets a new successor, and the
 * earlier one is marked used, so the family never has two live tokens. Once the successor was used, presenting the
 * rotated token revokes the grant, as without the window.
 *
 * The rotation stages the execution's audit event in its own statement, so the two commit together; once they
 * have, the answer is the new tokens even if the event's chaining has to wait (the command bus).
 *
 * DPoP (RFC 9449 §5): a grant bound to a key is refreshed only with a proof by that key, and a public client may
 * refresh only such a grant. A proof on an unbound grant (a confidential client) binds the new access token only.
 * A refused proof leaves the refresh token unrotated.
 */
export function refreshAccessToken(ctx: TokenServiceContext) {
  return defineCommand<RefreshInput, IssuedTokens>({
    id: 'token-service.token.refresh',
    access: 'public',
    businessIds: (input) => ({ clientId: input.client.clientId }),
    run: async (cmd, input) => {
      const now = ctx.clock.now();
      const { client } = input;
      if (!client.grantTypes.includes('refresh_token'))
        throw oauthError('unauthorized_client', 'The client may not use the refresh_token grant.');
      const tokenHash = hashToken(input.refreshToken);
      const next = newOpaqueToken();
      const grace = ctx.config.refreshTokenReuseGraceSeconds;
      // The proof's replay state and nonce key have units of work of their own: checked before the grant's.
      const proofJkt = await ctx.dpop.verifyTokenRequest(
        cmd.tenantId,
        `${ctx.issuerFor(cmd.tenantId)}/token`,
        input.dpopProof,
      );
      const asked = input.scope === undefined ? null : parseScope(input.scope);
      const audit = cmd.auditIntent();
      // Signing needs the tenant's active key, which the key manager re-reads every few seconds: read it now, before
      // the statement commits, so that a database lost right after the commit cannot fail the answer (issue 13 §7).
      await ctx.signer.holdKeyReady(cmd.tenantId);
      // One statement (shared with the tenant's concurrent refreshes), outside a transaction: it rotates the token
      // only if every check holds.
      const redeemed = await ctx.redemptions.redeemRefreshToken(cmd.tenantId, {
        tokenHash,
        clientId: client.clientId,
        now,
        rotatedAfter: grace > 0 ? new Date(now.getTime() - grace * 1000) : null,
        dpopJkt: proofJkt,
        publicClient: client.secret === null,
        scope: asked,
        next: {
          tokenHash: hashToken(next),
          expiresAt: new Date(now.getTime() + client.refreshTokenTtlSeconds * 1000),
        },
        auditEvent: audit.event,
      });
      if (!redeemed.rotated || !redeemed.found) {
        throw await refusal(cmd, redeemed.found, { client, asked, proofJkt, now });
      }
      audit.committed();
      const { token, grant } = redeemed.found;
      const outcome = {
        grant: { ...grant, dpopJkt: grant.dpopJkt ?? proofJkt },
        scope: formatScope(asked ?? parseScope(token.scope)),
      };
      const accessToken = await createAccessToken(ctx, cmd.tenantId, client, outcome.grant, outcome.scope, now);
      return {
        access_token: accessToken,
        token_type: outcome.grant.dpopJkt ? 'DPoP' : 'Bearer',
        expires_in: client.accessTokenTtlSeconds,
        refresh_token: next,
        scope: outcome.scope,
      };
    },
  });
}
