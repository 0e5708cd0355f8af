import { randomUUID } from 'node:crypto';
import { defineCommand } from '@tessera/platform';
import type { TokenServiceContext } from '../context.js';
import {
  checkAuthorizationRequest,
  clientRedirect,
  type AuthorizationRequest,
} from '../domain/authorization-request.js';
import { hashToken } from '../domain/random.js';
import { grantStore } from '../storage/grant-store.js';
import { upstreamVerifierAad } from '../storage/sealed-fields.js';
import type { AuthorizeOutcome } from './authorize-outcome.js';
import { completeWalletLogin } from './complete-wallet-login.js';
import { resolveCredentialRequest, splitCredentialRequest } from '../oid4vci/credential-authorization-request.js';
import { credentialAuthorizationStore } from '../oid4vci/credential-authorization-store.js';

export const WALLET_LOGIN_HINT = /^oid4vp:([0-9a-fA-F-]{36})$/;
export const federationCallbackPath = '/federation/callback';

/**
 * GET /authorize (000 §4.4): checks the request; with `login_hint=oid4vp:{sessionId}` completes a wallet login
 * through the bridge, otherwise starts an authorization code flow at the upstream institutional provider.
 */
export function startAuthorization(ctx: TokenServiceContext) {
  return defineCommand<{ params: URLSearchParams }, AuthorizeOutcome>({
    id: 'token-service.authorization.start',
    access: 'public',
    businessIds: (input) => ({ clientId: input.params.get('client_id')?.slice(0, 200) ?? '' }),
    run: async (cmd, { params }) => {
      // OpenID4VCI 1.0 §5.1: a request for credentials (issuer_state, authorization_details or a credential scope).
      const credentialParts = splitCredentialRequest(params, ctx.credentialScopes);
      const check = checkAuthorizationRequest(credentialParts?.params ?? params, cmd.tenantId, ctx.clients, {
        // dpop_jkt (RFC 9449 §10) binds a credential request's code whether or not DPoP is on for logins (HAIP 1.0).
        dpopEnabled: ctx.config.dpop.enabled || credentialParts !== null,
        allowMissingScope: credentialParts !== null,
      });
      if (check.kind === 'no_redirect')
        return { kind: 'error_page', status: 400, error: check.error, description: check.description };
      const iss = ctx.issuerFor(cmd.tenantId);
      if (check.kind === 'redirect_error') {
        return {
          kind: 'redirect',
          location: clientRedirect(check.redirectUri, {
            error: check.error,
            error_description: check.description,
            state: check.state,
            iss,
          }),
        };
      }
      let request = check.request;
      if (credentialParts) {
        const resolved = await resolveCredentialRequest(ctx, cmd.tenantId, credentialParts);
        if (!resolved.ok)
          return {
            kind: 'redirect',
            location: clientRedirect(request.redirectUri, {
              error: resolved.error,
              error_description: resolved.description,
              state: request.state,
              iss,
            }),
          };
        request = { ...request, credential: resolved.credential };
      }
      const wallet = request.loginHint ? WALLET_LOGIN_HINT.exec(request.loginHint) : null;
      if (wallet) return completeWalletLogin(ctx, cmd, request, wallet[1]!.toLowerCase());
      return startUpstreamLogin(ctx, cmd.tenantId, request);
    },
  });
}

async function startUpstreamLogin(
  ctx: TokenServiceContext,
  tenantId: string,
  request: AuthorizationRequest,
): Promise<AuthorizeOutcome> {
  const iss = ctx.issuerFor(tenantId);
  const back = (error: string, description: string): AuthorizeOutcome => ({
    kind: 'redirect',
    location: clientRedirect(request.redirectUri, { error, error_description: description, state: request.state, iss }),
  });
  if (!ctx.upstream) return back('access_denied', 'No institutional login is configured.');
  let start;
  try {
    start = await ctx.upstream.startLogin(`${iss}${federationCallbackPath}`);
  } catch {
    return back('temporarily_unavailable', 'The institutional login is unavailable.');
  }
  const now = ctx.clock.now();
  const id = randomUUID();
  const expiresAt = new Date(now.getTime() + ctx.config.loginTransactionTtlSeconds * 1000);
  await ctx.platform.db.withTenant(tenantId, async (sql) => {
    await grantStore.saveLoginTransaction(sql, {
      id,
      clientId: request.client.clientId,
      redirectUri: request.redirectUri,
      scope: request.scope,
      state: request.state,
      nonce: request.nonce,
      codeChallenge: request.codeChallenge,
      codeChallengeMethod: request.codeChallengeMethod,
      dpopJkt: request.dpopJkt,
      upstreamStateHash: hashToken(start.state),
      upstreamNonce: start.nonce,
      sealedUpstreamCodeVerifier: await ctx.sealer.sealJson(start.codeVerifier, upstreamVerifierAad(tenantId, id), sql),
      createdAt: now,
      expiresAt,
    });
    if (request.credential)
      await credentialAuthorizationStore.saveForLogin(sql, id, request.credential, now, expiresAt);
  });
  return { kind: 'redirect', location: start.authorizationUrl };
}
