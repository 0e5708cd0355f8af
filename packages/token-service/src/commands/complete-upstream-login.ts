import { defineCommand, UpstreamLoginError } from '@tessera/platform';
import type { TokenServiceContext } from '../context.js';
import { clientRedirect } from '../domain/authorization-request.js';
import { hashToken } from '../domain/random.js';
import { grantStore } from '../storage/grant-store.js';
import { upstreamCodeVerifier } from '../storage/sealed-fields.js';
import type { AuthorizeOutcome } from './authorize-outcome.js';
import { federatedClaims } from '../domain/federated-claims.js';
import { issueAuthorizationCode } from './issue-authorization-code.js';
import { federationCallbackPath } from './start-authorization.js';
import { credentialAuthorizationStore } from '../oid4vci/credential-authorization-store.js';

/**
 * The upstream provider's redirect back (federated login, 000 §4.4): the state is single use (the login
 * transaction is deleted as it is taken), the code is exchanged with the stored PKCE verifier, the ID token is
 * verified (openid-client), and the identity is found or created through its federation binding. Tokens then
 * carry the provider's acr and amr [federation].
 */
export function completeUpstreamLogin(ctx: TokenServiceContext) {
  return defineCommand<{ query: URLSearchParams }, AuthorizeOutcome>({
    id: 'token-service.authorization.complete-federated-login',
    access: 'public',
    run: async (cmd, { query }) => {
      const state = query.get('state');
      if (!state || !ctx.upstream)
        return {
          kind: 'error_page',
          status: 400,
          error: 'invalid_request',
          description: 'The login state is missing.',
        };
      const tx = await ctx.platform.db.withTenant(cmd.tenantId, (sql) =>
        grantStore.takeLoginTransactionByUpstreamState(sql, hashToken(state)),
      );
      const now = ctx.clock.now();
      if (!tx || tx.expiresAt.getTime() <= now.getTime()) {
        return {
          kind: 'error_page',
          status: 400,
          error: 'invalid_request',
          description: 'The login state is invalid, expired or already used.',
        };
      }
      const iss = ctx.issuerFor(cmd.tenantId);
      const back = (error: string, description: string): AuthorizeOutcome => ({
        kind: 'redirect',
        location: clientRedirect(tx.redirectUri, { error, error_description: description, state: tx.state, iss }),
      });
      let result;
      try {
        result = await ctx.upstream.finishLogin({
          redirectUri: `${iss}${federationCallbackPath}`,
          callbackQuery: query,
          state,
          nonce: tx.upstreamNonce!,
          codeVerifier: (await upstreamCodeVerifier(ctx, cmd.tenantId, tx))!,
          userinfo: true,
        });
      } catch (error) {
        if (error instanceof UpstreamLoginError) {
          cmd.log.warn({ reason: error.reason, provider_error: error.providerError }, 'federated login failed');
          if (error.reason === 'provider_error')
            return back('access_denied', 'The institutional login was cancelled or refused.');
          if (error.reason === 'provider_unreachable')
            return back('temporarily_unavailable', 'The institutional login is unavailable.');
          return back('access_denied', 'The institutional login could not be verified.');
        }
        throw error;
      }
      const claims = federatedClaims(result.claims, ctx.serviceClaim);
      // The identity, the grant, its code and the execution's audit event commit together (issue 13 §7).
      const location = await cmd.unitOfWork(async (sql) => {
        const unit = { tenantId: cmd.tenantId, sql };
        const assurance = { acr: result.acr ?? ctx.config.upstream.defaultAcr, amr: ['federation'] };
        let identity = await ctx.identities.findByFederationSubject(unit, result.issuer, result.subject);
        if (!identity) {
          identity = await ctx.identities.createIdentity(unit, { claims, assurance });
          await ctx.identities.bindFederation(unit, identity.internalIdentityId, result.issuer, result.subject);
        } else {
          // One person, one set of claims (issue 14 §1): the institution's claims as released now become the
          // identity's, so that a later wallet login of the same person (whose tokens carry the identity's claims)
          // says what this one says.
          const reconciled = { ...identity.claims, ...claims };
          if (JSON.stringify(reconciled) !== JSON.stringify(identity.claims)) {
            await ctx.identities.updateClaims(unit, identity.internalIdentityId, reconciled);
            identity = { ...identity, claims: reconciled };
          }
        }
        // OpenID4VCI 1.0 §5: what a credential request authorized travels with the login to the code.
        const credential = await credentialAuthorizationStore.takeForLogin(sql, tx.id);
        return issueAuthorizationCode(
          ctx,
          cmd.tenantId,
          sql,
          tx,
          {
            subject: identity.internalIdentityId,
            acr: assurance.acr,
            amr: assurance.amr,
            authTime: typeof result.claims.auth_time === 'number' ? new Date(result.claims.auth_time * 1000) : now,
            claims: { ...identity.claims, ...claims },
          },
          credential ?? undefined,
        );
      });
      return { kind: 'redirect', location };
    },
  });
}
