import { defineCommand } from '@tessera/platform';
import type { TokenServiceContext } from '../context.js';
import type { Client } from '../clients/client-registry.js';
import { oauthError } from '../domain/oauth-error.js';
import { CODE_VERIFIER, verifyS256 } from '../domain/pkce.js';
import { dpopBindingError } from '../domain/dpop-binding.js';
import type { DpopHeader } from '../dpop/token-service-dpop.js';
import { hashToken, newOpaqueToken } from '../domain/random.js';
import { parseScope } from '../domain/scopes.js';
import { grantStore } from '../storage/grant-store.js';
import { createAccessToken, createIdToken, type IssuedTokens } from '../tokens/issue-tokens.js';

export interface ExchangeCodeInput {
  client: Client;
  code: string;
  redirectUri: string | undefined;
  codeVerifier: string | undefined;
  /** The request's DPoP header (RFC 9449 §5); looked at only when DPoP is on. */
  dpopProof?: DpopHeader;
}

const invalidGrant = (why: string) => oauthError('invalid_grant', why);

/**
 * The authorization_code grant (RFC 6749 §4.1.3, 000 §4.4): the code is single use and bound to its client and
 * redirect URI; the PKCE verifier must match the S256 challenge (RFC 7636 §4.6). A second redemption revokes
 * what the first issued (RFC 6749 §4.1.2). Issues an access token, an ID token when `openid` was granted, and
 * a refresh token when `offline_access` was granted to a client allowed the refresh_token grant.
 *
 * DPoP (RFC 9449 §5, §10): with DPoP on, a proof is verified before the code is looked at; a code bound by
 * `dpop_jkt` needs a proof by that key, and a proof binds the grant (access and refresh tokens) to its key.
 * A refused proof leaves the code unused.
 */
export function exchangeAuthorizationCode(ctx: TokenServiceContext) {
  return defineCommand<ExchangeCodeInput, IssuedTokens>({
    id: 'token-service.token.exchange-authorization-code',
    access: 'public',
    businessIds: (input) => ({ clientId: input.client.clientId }),
    run: async (cmd, input) => {
      const now = ctx.clock.now();
      const { client } = input;
      if (!input.codeVerifier) throw oauthError('invalid_request', 'code_verifier is required (PKCE).');
      // A malformed verifier is a malformed request (RFC 7636 §4.1 syntax, RFC 6749 §5.2); a well-formed one that
      // does not match is invalid_grant (RFC 7636 §4.6).
      if (!CODE_VERIFIER.test(input.codeVerifier)) throw oauthError('invalid_request', 'code_verifier is malformed.');
      if (!input.redirectUri) throw oauthError('invalid_request', 'redirect_uri is required (RFC 6749 §4.1.3).');
      // The proof's replay state and nonce key have units of work of their own: checked before the grant's.
      const proofJkt = await ctx.dpop.verifyTokenRequest(cmd.tenantId, `${ctx.issuerFor(cmd.tenantId)}/token`, input.dpopProof);
      const codeHash = hashToken(input.code);
      const issued = await ctx.platform.db.withTenant(cmd.tenantId, async (sql) => {
        const found = await grantStore.findCodeWithGrant(sql, codeHash);
        if (!found || found.code.clientId !== client.clientId) return { error: invalidGrant('The authorization code is invalid.') };
        const { code, grant } = found;
        if (code.consumedAt !== null) {
          await grantStore.revokeGrant(sql, grant.id, 'authorization_code_reuse', now);
          return { error: invalidGrant('The authorization code was already used.') };
        }
        if (code.expiresAt.getTime() <= now.getTime()) return { error: invalidGrant('The authorization code has expired.') };
        if (input.redirectUri !== code.redirectUri) return { error: invalidGrant('redirect_uri does not match the authorization request.') };
        if (code.codeChallengeMethod !== 'S256' || !verifyS256(input.codeVerifier!, code.codeChallenge)) {
          return { error: invalidGrant('The PKCE verification failed.') };
        }
        const binding = dpopBindingError(grant.dpopJkt, proofJkt);
        if (binding) return { error: oauthError('invalid_dpop_proof', binding) };
        const dpopJkt = grant.dpopJkt ?? proofJkt;
        const offline = parseScope(grant.scope).includes('offline_access') && client.grantTypes.includes('refresh_token');
        const refreshToken = offline ? newOpaqueToken() : null;
        const lifetime = Math.max(client.accessTokenTtlSeconds, client.idTokenTtlSeconds, offline ? client.refreshTokenTtlSeconds : 0);
        const consumed = await grantStore.consumeCode(sql, {
          codeHash,
          now,
          grantExpiresAt: new Date(now.getTime() + lifetime * 1000),
          dpopJkt,
          refresh: refreshToken
            ? { tokenHash: hashToken(refreshToken), scope: grant.scope, expiresAt: new Date(now.getTime() + client.refreshTokenTtlSeconds * 1000) }
            : null,
        });
        if (!consumed) return { error: invalidGrant('The authorization code was already used.') };
        return { grant: { ...grant, dpopJkt }, nonce: code.nonce, refreshToken };
      });
      // The replay revocation above must commit, so the refusal is thrown only after the unit of work.
      if ('error' in issued) throw issued.error;
      const { grant, nonce, refreshToken } = issued;
      const scopes = parseScope(grant.scope);
      const [accessToken, idToken] = await Promise.all([
        createAccessToken(ctx, cmd.tenantId, client, grant, grant.scope, now),
        scopes.includes('openid') ? createIdToken(ctx, cmd.tenantId, client, grant, nonce, now) : Promise.resolve(undefined),
      ]);
      return {
        access_token: accessToken,
        token_type: grant.dpopJkt ? 'DPoP' : 'Bearer',
        expires_in: client.accessTokenTtlSeconds,
        ...(refreshToken ? { refresh_token: refreshToken } : {}),
        ...(idToken ? { id_token: idToken } : {}),
        scope: grant.scope,
      };
    },
  });
}
