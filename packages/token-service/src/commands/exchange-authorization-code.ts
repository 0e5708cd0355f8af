import { defineCommand, type ExecutionContext } from '@tessera/platform';
import type { TokenServiceContext } from '../context.js';
import type { Client } from '../clients/client-registry.js';
import { oauthError } from '../domain/oauth-error.js';
import { isCodeVerifier, s256Challenge, verifyS256 } from '../domain/pkce.js';
import { dpopBindingError } from '../domain/dpop-binding.js';
import type { DpopHeader } from '../dpop/token-service-dpop.js';
import { hashToken, newOpaqueToken } from '../domain/random.js';
import { parseScope } from '../domain/scopes.js';
import { grantStore, type AuthorizationCode, type Grant } from '../storage/grant-store.js';
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

/** `seconds` after `now`. Module-level: a closure made per exchange is also named per exchange under tsx. */
function secondsAfter(now: Date, seconds: number): Date {
  return new Date(now.getTime() + seconds * 1000);
}

/**
 * Why a redemption that consumed nothing was refused, from the code and grant as the statement found them, in the
 * order of the checks of RFC 6749 §4.1.3 and RFC 7636 §4.6. A code already consumed is a second redemption: its grant
 * is revoked, so that what the first issued stops working (RFC 6749 §4.1.2). A code that passed every check was
 * consumed by a concurrent redemption between the statement's read and its update. The revocation and the
 * execution's audit event commit together (issue 13 §7).
 */
async function refusal(
  cmd: ExecutionContext,
  found: { code: AuthorizationCode; grant: Grant } | null,
  input: { client: Client; redirectUri: string; codeVerifier: string; proofJkt: string | null; now: Date },
): Promise<Error> {
  if (!found || found.code.clientId !== input.client.clientId)
    return invalidGrant('The authorization code is invalid.');
  const { code, grant } = found;
  if (code.consumedAt !== null) {
    const reuse = invalidGrant('The authorization code was already used.');
    await cmd.unitOfWork((sql) => grantStore.revokeGrant(sql, grant.id, 'authorization_code_reuse', input.now), {
      answers: reuse,
    });
    return reuse;
  }
  if (code.expiresAt.getTime() <= input.now.getTime()) return invalidGrant('The authorization code has expired.');
  if (input.redirectUri !== code.redirectUri)
    return invalidGrant('redirect_uri does not match the authorization request.');
  if (code.codeChallengeMethod !== 'S256' || !verifyS256(input.codeVerifier, code.codeChallenge)) {
    return invalidGrant('The PKCE verification failed.');
  }
  const binding = dpopBindingError(grant.dpopJkt, input.proofJkt);
  if (binding) return oauthError('invalid_dpop_proof', binding);
  return invalidGrant('The authorization code was already used.');
}

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
      if (!isCodeVerifier(input.codeVerifier)) throw oauthError('invalid_request', 'code_verifier is malformed.');
      if (!input.redirectUri) throw oauthError('invalid_request', 'redirect_uri is required (RFC 6749 §4.1.3).');
      // The proof's replay state and nonce key have units of work of their own: checked before the grant's.
      const proofJkt = await ctx.dpop.verifyTokenRequest(
        cmd.tenantId,
        `${ctx.issuerFor(cmd.tenantId)}/token`,
        input.dpopProof,
      );
      const codeVerifier = input.codeVerifier;
      const redirectUri = input.redirectUri;
      const codeHash = hashToken(input.code);
      // A refresh token is stored only when the grant's scope holds offline_access, which the statement reads.
      const newRefreshToken = client.grantTypes.includes('refresh_token') ? newOpaqueToken() : null;
      const lifetime = Math.max(client.accessTokenTtlSeconds, client.idTokenTtlSeconds);
      // The statement stages the execution's audit event when it consumes the code: they commit together.
      const audit = cmd.auditIntent();
      // Signing needs the tenant's active key, which the key manager re-reads every few seconds: read it now, before
      // the statement commits, so that a database lost right after the commit cannot fail the answer (issue 13 §7).
      await ctx.signer.holdKeyReady(cmd.tenantId);
      // One statement (shared with the tenant's concurrent exchanges), outside a transaction: it consumes the code
      // only if every check holds. Its gate compares the verifier's S256 digest with the stored challenge; a refusal
      // is explained below by the constant-time check.
      const redeemed = await ctx.redemptions.redeemCode(cmd.tenantId, {
        codeHash,
        clientId: client.clientId,
        redirectUri,
        codeChallenge: s256Challenge(codeVerifier),
        now,
        dpopJkt: proofJkt,
        grantExpiresAt: secondsAfter(now, lifetime),
        grantExpiresAtWithRefresh: secondsAfter(now, Math.max(lifetime, client.refreshTokenTtlSeconds)),
        refresh: newRefreshToken
          ? {
              tokenHash: hashToken(newRefreshToken),
              expiresAt: secondsAfter(now, client.refreshTokenTtlSeconds),
              requiredScope: 'offline_access',
            }
          : null,
        auditEvent: audit.event,
      });
      if (!redeemed.consumed || !redeemed.found) {
        throw await refusal(cmd, redeemed.found, { client, redirectUri, codeVerifier, proofJkt, now });
      }
      audit.committed();
      const grant = { ...redeemed.found.grant, dpopJkt: redeemed.found.grant.dpopJkt ?? proofJkt };
      const nonce = redeemed.found.code.nonce;
      const refreshToken = redeemed.refreshStored ? newRefreshToken : null;
      const scopes = parseScope(grant.scope);
      const [accessToken, idToken] = await Promise.all([
        createAccessToken(ctx, cmd.tenantId, client, grant, grant.scope, now),
        scopes.includes('openid')
          ? createIdToken(ctx, cmd.tenantId, client, grant, nonce, now)
          : Promise.resolve(undefined),
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
