import { defineCommand, type CommandContext } from '@tessera/platform';
import type { TokenServiceContext } from '../context.js';
import { CREDENTIAL_CODE_PREFIX } from '../oid4vci/credential-authorization.js';
import { presentsClientCredentials } from '../oid4vci/pre-authorized-client.js';
import type { CredentialTokenResponse } from '../oid4vci/credential-access-token.js';
import type { IssuedTokens } from '../tokens/issue-tokens.js';
import type { Client } from '../clients/client-registry.js';
import { exchangeAuthorizationCode } from './exchange-authorization-code.js';
import { refreshAccessToken } from './refresh-access-token.js';
import { issueClientCredentialsToken } from './issue-client-credentials-token.js';
import { exchangePreAuthorizedCode } from './exchange-pre-authorized-code.js';
import { exchangeCredentialAuthorizationCode } from './exchange-credential-authorization-code.js';
import { header, type ClientRequest, type ClientRequestAuthenticator } from './client-request.js';
import { parseTokenGrant } from './token-grant.js';

export interface TokenRequest extends ClientRequest {
  /** The request target, as the grant parser reads it. */
  url: string;
}

/** The token response (RFC 6749 §5.1) and its extra headers (a fresh DPoP nonce, RFC 9449 §8). */
export interface TokenAnswer {
  body: IssuedTokens | CredentialTokenResponse;
  headers: Record<string, string>;
}

/**
 * The token endpoint (RFC 6749 §3.2, 000 §4.4): parses the grant, authenticates the client as the grant asks
 * (RFC 6749 §2.3), and runs the grant's command through the bus under the client's principal; that command decides,
 * writes and is audited. This one writes no audit event of its own: a malformed request changed nothing, and a
 * refused authentication is the guard's authentication event.
 */
export function requestToken(ctx: TokenServiceContext, authenticator: ClientRequestAuthenticator) {
  const exchange = exchangeAuthorizationCode(ctx);
  const refresh = refreshAccessToken(ctx);
  const clientCredentials = issueClientCredentialsToken(ctx);
  const preAuthorized = exchangePreAuthorizedCode(ctx);
  const credentialCode = exchangeCredentialAuthorizationCode(ctx);
  const run = ctx.platform.commands;

  return defineCommand<TokenRequest, TokenAnswer>({
    id: 'token-service.token.request',
    access: 'public',
    audit: 'self',
    run: async (cmd, request) => {
      const { form, headers } = request;
      const grant = parseTokenGrant(ctx, cmd.tenantId, request);
      const dpopHeader = headers.dpop;
      if (grant.grantType === 'pre-authorized_code') {
        // OpenID4VCI 1.0 §6.1: anonymous access (pre-authorized_grant_anonymous_access_supported). A client that
        // authenticates, or names a registered client, is authenticated as at the other grants; any other
        // client_id only names the wallet and is not trusted.
        const known =
          presentsClientCredentials(header(headers.authorization), form) ||
          (form.client_id !== undefined && ctx.clients.find(cmd.tenantId, form.client_id) !== undefined);
        const { client, cmd: grantCmd }: { client: Client | null; cmd: CommandContext } = known
          ? await authenticator.authenticate(cmd, request, { allowPublic: true })
          : { client: null, cmd };
        // HAIP 1.0: a proof binds an OpenID4VCI token whether or not DPoP is on for the other grants.
        const { response } = await run.execute(preAuthorized, grantCmd, {
          client,
          preAuthorizedCode: grant.preAuthorizedCode,
          txCode: grant.txCode,
          authorizationDetails: form.authorization_details,
          resource: form.resource,
          dpopProof: dpopHeader,
        });
        return { body: response, headers: await ctx.dpop.responseHeaders(cmd.tenantId, dpopHeader) };
      }
      const dpopProof = ctx.dpop.enabled ? dpopHeader : undefined;
      // RFC 9449 §5: a public client's refresh token is bound to its DPoP key, which the refresh proof demonstrates.
      const allowPublic =
        grant.grantType === 'authorization_code' || (grant.grantType === 'refresh_token' && dpopProof !== undefined);
      const { client, cmd: clientCmd } = await authenticator.authenticate(cmd, request, { allowPublic });
      if (grant.grantType === 'authorization_code' && grant.code.startsWith(CREDENTIAL_CODE_PREFIX)) {
        // OpenID4VCI 1.0 §6.1: a code of a credential request, exchanged for the credential endpoint's token.
        const { response } = await run.execute(credentialCode, clientCmd, {
          client,
          code: grant.code,
          redirectUri: form.redirect_uri,
          codeVerifier: form.code_verifier,
          resource: form.resource,
          dpopProof: dpopHeader,
        });
        return { body: response, headers: await ctx.dpop.responseHeaders(cmd.tenantId, dpopHeader) };
      }
      const tokens =
        grant.grantType === 'authorization_code'
          ? await run.execute(exchange, clientCmd, {
              client,
              code: grant.code,
              redirectUri: form.redirect_uri,
              codeVerifier: form.code_verifier,
              dpopProof,
            })
          : grant.grantType === 'refresh_token'
            ? await run.execute(refresh, clientCmd, {
                client,
                refreshToken: grant.refreshToken,
                scope: form.scope,
                dpopProof,
              })
            : await run.execute(clientCredentials, clientCmd, { client, scope: form.scope, dpopProof });
      return { body: tokens, headers: await ctx.dpop.responseHeaders(cmd.tenantId, dpopProof) };
    },
  });
}
