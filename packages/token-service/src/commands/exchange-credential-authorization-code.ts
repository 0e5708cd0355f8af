import { randomUUID } from 'node:crypto';
import { defineCommand } from '@tessera/platform';
import type { TokenServiceContext } from '../context.js';
import type { Client } from '../clients/client-registry.js';
import { dpopBindingError } from '../domain/dpop-binding.js';
import { oauthError } from '../domain/oauth-error.js';
import { isCodeVerifier, verifyS256 } from '../domain/pkce.js';
import { hashToken } from '../domain/random.js';
import type { DpopHeader } from '../dpop/token-service-dpop.js';
import { credentialAuthorizationStore } from '../oid4vci/credential-authorization-store.js';
import {
  createCredentialAccessToken,
  credentialAudience,
  type CredentialTokenResponse,
} from '../oid4vci/credential-access-token.js';

export interface ExchangeCredentialCodeInput {
  client: Client;
  code: string;
  redirectUri: string | undefined;
  codeVerifier: string | undefined;
  /** RFC 8707: the credential issuer, when the wallet names it. */
  resource?: string | undefined;
  dpopProof: DpopHeader;
}

type Exchange =
  | { kind: 'exchanged'; subject: string; correlationId: string; configurationIds: string[] }
  | { kind: 'refused'; error: 'invalid_grant' | 'invalid_dpop_proof'; description: string };

/**
 * The authorization_code grant of the OpenID4VCI flow (§6.1 with §5): a code issued after the person logged in for
 * an issuer_state is exchanged for the credential endpoint's token (contract B of issue 19: sub the person,
 * issuance_session, authorization_details), not for an ordinary login's tokens; no refresh or ID token. The checks are
 * those of RFC 6749 §4.1.3 and RFC 7636 §4.6 (PKCE S256 required), and RFC 9449 (a code bound by dpop_jkt needs a
 * proof by that key; with `requireDpop`, HAIP 1.0, every exchange needs a proof). The code's row is locked for the
 * exchange, so that of concurrent exchanges one wins; a code presented again revokes its grant and the token the first
 * exchange issued (RFC 6749 §4.1.2).
 */
export function exchangeCredentialAuthorizationCode(ctx: TokenServiceContext) {
  return defineCommand<ExchangeCredentialCodeInput, { response: CredentialTokenResponse; correlationId: string }>({
    id: 'token-service.token.credential-authorization-code',
    access: 'public',
    businessIds: (input, output) => ({
      grantType: 'authorization_code',
      clientId: input.client.clientId,
      ...(output ? { correlationId: output.correlationId } : {}),
    }),
    run: async (cmd, input) => {
      const tenantId = cmd.tenantId;
      if (!input.codeVerifier) throw oauthError('invalid_request', 'code_verifier is required (PKCE).');
      if (!isCodeVerifier(input.codeVerifier)) throw oauthError('invalid_request', 'code_verifier is malformed.');
      if (!input.redirectUri) throw oauthError('invalid_request', 'redirect_uri is required (RFC 6749 §4.1.3).');
      const audience = credentialAudience(ctx, tenantId, input.resource);
      const proofJkt = await ctx.dpop.verifyTokenRequest(
        tenantId,
        `${ctx.issuerFor(tenantId)}/token`,
        input.dpopProof,
        {
          always: true,
        },
      );
      if (!proofJkt && ctx.config.oid4vci.requireDpop)
        throw oauthError('invalid_dpop_proof', 'A DPoP proof is required for this grant.');
      const ttl = ctx.config.oid4vci.accessTokenTtlSeconds;
      const codeHash = hashToken(input.code);
      const jti = randomUUID();
      const now = ctx.clock.now();
      const refused = (error: 'invalid_grant' | 'invalid_dpop_proof', description: string): Exchange => ({
        kind: 'refused',
        error,
        description,
      });

      const outcome = await ctx.platform.db.withTenant(tenantId, async (sql): Promise<Exchange> => {
        const state = await credentialAuthorizationStore.lockCode(sql, codeHash);
        if (!state || state.clientId !== input.client.clientId)
          return refused('invalid_grant', 'The authorization code is invalid.');
        if (state.consumedAt !== null) {
          const tokenExpiresAt = new Date(state.consumedAt.getTime() + ttl * 1000);
          await credentialAuthorizationStore.revokeOnReuse(sql, state, now, tokenExpiresAt);
          return refused('invalid_grant', 'The authorization code was already used.');
        }
        if (state.revokedAt !== null) return refused('invalid_grant', 'The authorization code is invalid.');
        if (state.expiresAt.getTime() <= now.getTime())
          return refused('invalid_grant', 'The authorization code has expired.');
        if (input.redirectUri !== state.redirectUri)
          return refused('invalid_grant', 'redirect_uri does not match the authorization request.');
        if (state.codeChallengeMethod !== 'S256' || !verifyS256(input.codeVerifier!, state.codeChallenge))
          return refused('invalid_grant', 'The PKCE verification failed.');
        const binding = dpopBindingError(state.dpopJkt, proofJkt);
        if (binding) return refused('invalid_dpop_proof', binding);
        if (!state.subject) return refused('invalid_grant', 'The authorization code is invalid.');
        await credentialAuthorizationStore.consume(sql, {
          codeHash,
          grantId: state.grantId,
          now,
          dpopJkt: proofJkt,
          grantExpiresAt: new Date(now.getTime() + ttl * 1000),
          jti,
        });
        return {
          kind: 'exchanged',
          subject: state.subject,
          correlationId: state.correlationId,
          configurationIds: state.configurationIds,
        };
      });

      if (outcome.kind === 'refused') throw oauthError(outcome.error, outcome.description);
      return {
        correlationId: outcome.correlationId,
        response: await createCredentialAccessToken(ctx, tenantId, {
          audience,
          subject: outcome.subject,
          correlationId: outcome.correlationId,
          configurationIds: outcome.configurationIds,
          clientId: input.client.clientId,
          dpopJkt: proofJkt,
          jti,
          now,
        }),
      };
    },
  });
}
