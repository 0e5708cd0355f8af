import type { FastifyReply, FastifyRequest } from 'fastify';
import { Oauth2ServerErrorResponseError } from '@openid4vc/oauth2';
import { decodeJwt } from 'jose';
import { AppError, commandContext, isAppError, recordAuthenticationFailure, type RoleApp } from '@tessera/platform';
import type { TokenServiceContext } from '../../context.js';
import { authenticateClient } from '../../clients/authenticate-client.js';
import { ClientAuthenticationGuard, claimedClientId } from '../../clients/authentication-guard.js';
import type { Client } from '../../clients/client-registry.js';
import { exchangeAuthorizationCode } from '../../commands/exchange-authorization-code.js';
import { refreshAccessToken } from '../../commands/refresh-access-token.js';
import { issueClientCredentialsToken } from '../../commands/issue-client-credentials-token.js';
import { introspectToken } from '../../commands/introspect-token.js';
import { revokeToken } from '../../commands/revoke-token.js';
import { getUserinfo } from '../../commands/get-userinfo.js';
import { oauthError, isOAuthErrorCode } from '../../domain/oauth-error.js';
import { formParams, NO_STORE } from '../form.js';
import { presentedAccessToken } from '../access-token.js';
import { exchangePreAuthorizedCode } from '../../commands/exchange-pre-authorized-code.js';
import { exchangeCredentialAuthorizationCode } from '../../commands/exchange-credential-authorization-code.js';
import { CREDENTIAL_CODE_PREFIX } from '../../oid4vci/credential-authorization.js';
import {
  isCredentialGrant,
  PRE_AUTHORIZED_CODE_GRANT,
  presentsClientCredentials,
  withoutResource,
} from '../../oid4vci/pre-authorized-client.js';

/** The request headers @openid4vc/oauth2 reads when it parses a token request. */
const LIBRARY_HEADERS = ['dpop', 'oauth-client-attestation', 'oauth-client-attestation-pop'] as const;

/** Parses the grant with @openid4vc/oauth2 (authorization_code, refresh_token); client_credentials is ours. */
function parseGrant(ctx: TokenServiceContext, tenantId: string, request: FastifyRequest, form: Record<string, string>) {
  if (form.grant_type === 'client_credentials') return { grantType: 'client_credentials' as const };
  // Only the headers the library looks at (its DPoP and client attestation checks), not the whole request's. With
  // DPoP on, the proof is verified in full by the grant's command (RFC 9449 §4.3), with its own answers.
  const headers = new Headers();
  for (const name of LIBRARY_HEADERS) {
    if (name === 'dpop' && ctx.dpop.enabled) continue;
    const value = request.headers[name];
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  try {
    const parsed = ctx.signer.oauth2For(tenantId).parseAccessTokenRequest({
      request: { method: 'POST', url: request.url, headers },
      // RFC 8707 `resource` of an OpenID4VCI grant is the credential issuer, which the grant's command checks against
      // the tenant's binding (a loopback http issuer in development included); the library would accept https only.
      accessTokenRequest: isCredentialGrant(form) ? withoutResource(form) : form,
    });
    if (parsed.grant.grantType === 'authorization_code')
      return { grantType: 'authorization_code' as const, code: parsed.grant.code };
    if (parsed.grant.grantType === 'refresh_token')
      return { grantType: 'refresh_token' as const, refreshToken: parsed.grant.refreshToken };
    if (parsed.grant.grantType === PRE_AUTHORIZED_CODE_GRANT)
      return {
        grantType: 'pre-authorized_code' as const,
        preAuthorizedCode: parsed.grant.preAuthorizedCode,
        txCode: parsed.grant.txCode,
      };
  } catch (error) {
    if (error instanceof Oauth2ServerErrorResponseError) {
      const code = error.errorResponse.error;
      throw oauthError(
        isOAuthErrorCode(code) ? code : 'invalid_request',
        code === 'unsupported_grant_type' ? 'The grant type is not supported.' : 'The token request is malformed.',
      );
    }
    throw error;
  }
  throw oauthError('unsupported_grant_type', 'The grant type is not supported.');
}

export function registerTokenRoutes(app: RoleApp, ctx: TokenServiceContext): void {
  const exchange = exchangeAuthorizationCode(ctx);
  const refresh = refreshAccessToken(ctx);
  const clientCredentials = issueClientCredentialsToken(ctx);
  const introspect = introspectToken(ctx);
  const revoke = revokeToken(ctx);
  const userinfo = getUserinfo(ctx);
  const preAuthorized = exchangePreAuthorizedCode(ctx);
  const credentialCode = exchangeCredentialAuthorizationCode(ctx);
  const run = ctx.platform.commands;
  // Limited per address and per authenticated client by the guard below, never per claimed client id alone.
  const config = { family: 'oauth' as const, auth: 'none' as const, rateLimit: false as const };
  const guard = new ClientAuthenticationGuard(ctx.platform, 'token');
  // A refused DPoP proof (RFC 9449 §4.3, §7.1) and a refused access token at /userinfo are authentication events of
  // the request's tenant, rate-limited per source (issue 15 item 3): the client or subject claimed, never the proof
  // or the token. A nonce challenge (use_dpop_nonce) and a request without any token are not refusals of a credential.
  app.addHook('onError', (request, _reply, error, done) => {
    const presented =
      isAppError(error) && error.wireCode === 'invalid_token' && request.state.route === '/userinfo'
        ? presentedAccessToken(request.headers.authorization, request.body, ctx.dpop.enabled)
        : null;
    if (presented) {
      let subject: string | null = null;
      try {
        const sub = decodeJwt(presented.token).sub;
        subject = typeof sub === 'string' ? sub : null;
      } catch {
        subject = null;
      }
      recordAuthenticationFailure(ctx.platform, request, {
        method: 'bearer_token',
        reason: 'invalid_token',
        claimedPrincipal: subject,
      });
    }
    if (isAppError(error) && error.wireCode === 'invalid_dpop_proof') {
      let claimed: string | undefined;
      try {
        claimed = claimedClientId(request, formParams(request));
      } catch {
        claimed = undefined;
      }
      recordAuthenticationFailure(ctx.platform, request, {
        method: 'dpop_proof',
        reason: 'invalid_dpop_proof',
        claimedPrincipal: claimed ?? null,
      });
    }
    done();
  });

  const authenticated = async (request: FastifyRequest, form: Record<string, string>, allowPublic: boolean) => {
    const tenantId = request.state.tenantId!;
    const claimed = claimedClientId(request, form);
    await guard.before(request, tenantId, claimed);
    let client: Client;
    try {
      ({ client } = await authenticateClient(
        ctx.clients,
        ctx.secrets,
        tenantId,
        { authorization: request.headers.authorization, body: form },
        { allowPublic },
      ));
    } catch (error) {
      if (error instanceof AppError && error.wireCode === 'invalid_client')
        await guard.failed(request, tenantId, claimed);
      throw error;
    }
    await guard.succeeded(tenantId, client.clientId);
    const cmd = commandContext(request);
    return {
      client,
      cmd: {
        ...cmd,
        principal: {
          id: client.clientId,
          kind: 'client' as const,
          tenantId,
          roles: [],
          scopes: [],
          clientId: client.clientId,
          issuer: null,
        },
      },
    };
  };

  app.post('/token', { config, schema: { tags: ['token'] } }, async (request, reply) => {
    reply.headers(NO_STORE);
    const form = formParams(request);
    const grant = parseGrant(ctx, request.state.tenantId!, request, form);
    const dpopProof = ctx.dpop.enabled ? request.headers.dpop : undefined;
    if (grant.grantType === 'pre-authorized_code') {
      // OpenID4VCI 1.0 §6.1: anonymous access (pre-authorized_grant_anonymous_access_supported). A client that
      // authenticates, or names a registered client, is authenticated as at the other grants; any other
      // client_id only names the wallet and is not trusted.
      const known =
        presentsClientCredentials(request, form) ||
        (form.client_id !== undefined && ctx.clients.find(request.state.tenantId!, form.client_id) !== undefined);
      const { client, cmd } = known
        ? await authenticated(request, form, true)
        : { client: null, cmd: commandContext(request) };
      // HAIP 1.0: a proof binds an OpenID4VCI token whether or not DPoP is on for the other grants.
      const credentialProof = request.headers.dpop;
      const { response } = await run.execute(preAuthorized, cmd, {
        client,
        preAuthorizedCode: grant.preAuthorizedCode,
        txCode: grant.txCode,
        authorizationDetails: form.authorization_details,
        resource: form.resource,
        dpopProof: credentialProof,
      });
      return reply.headers(await ctx.dpop.responseHeaders(cmd.tenantId, credentialProof)).send(response);
    }
    // RFC 9449 §5: a public client's refresh token is bound to its DPoP key, which the refresh proof demonstrates.
    const allowPublic =
      grant.grantType === 'authorization_code' || (grant.grantType === 'refresh_token' && dpopProof !== undefined);
    const { client, cmd } = await authenticated(request, form, allowPublic);
    if (grant.grantType === 'authorization_code' && grant.code.startsWith(CREDENTIAL_CODE_PREFIX)) {
      // OpenID4VCI 1.0 §6.1: a code of a credential request, exchanged for the credential endpoint's token.
      const { response } = await run.execute(credentialCode, cmd, {
        client,
        code: grant.code,
        redirectUri: form.redirect_uri,
        codeVerifier: form.code_verifier,
        resource: form.resource,
        dpopProof: request.headers.dpop,
      });
      return reply.headers(await ctx.dpop.responseHeaders(cmd.tenantId, request.headers.dpop)).send(response);
    }
    const tokens =
      grant.grantType === 'authorization_code'
        ? await run.execute(exchange, cmd, {
            client,
            code: grant.code,
            redirectUri: form.redirect_uri,
            codeVerifier: form.code_verifier,
            dpopProof,
          })
        : grant.grantType === 'refresh_token'
          ? await run.execute(refresh, cmd, { client, refreshToken: grant.refreshToken, scope: form.scope, dpopProof })
          : await run.execute(clientCredentials, cmd, { client, scope: form.scope, dpopProof });
    return reply.headers(await ctx.dpop.responseHeaders(cmd.tenantId, dpopProof)).send(tokens);
  });

  app.post('/introspect', { config, schema: { tags: ['token'] } }, async (request, reply) => {
    reply.headers(NO_STORE);
    const form = formParams(request);
    if (!form.token) throw oauthError('invalid_request', 'token is required.');
    const { client, cmd } = await authenticated(request, form, false);
    return run.execute(introspect, cmd, { client, token: form.token, hint: form.token_type_hint });
  });

  app.post('/revoke', { config, schema: { tags: ['token'] } }, async (request, reply) => {
    reply.headers(NO_STORE);
    const form = formParams(request);
    if (!form.token) throw oauthError('invalid_request', 'token is required.');
    const { client, cmd } = await authenticated(request, form, false);
    await run.execute(revoke, cmd, { client, token: form.token, hint: form.token_type_hint });
    return reply.code(200).send();
  });

  const userinfoHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const presented = presentedAccessToken(request.headers.authorization, request.body, ctx.dpop.enabled);
    if (!presented)
      throw oauthError('invalid_token', 'An access token is required.', {
        status: 401,
        headers: { 'www-authenticate': ctx.dpop.unauthenticatedChallenge() },
      });
    const dpopProof = presented.scheme === 'DPoP' ? request.headers.dpop : undefined;
    const cmd = commandContext(request);
    const claims = await run.execute(userinfo, cmd, {
      accessToken: presented.token,
      scheme: presented.scheme,
      dpopProof,
      httpMethod: request.method,
    });
    return reply.headers(await ctx.dpop.responseHeaders(cmd.tenantId, dpopProof)).send(claims);
  };
  app.get('/userinfo', { config: { family: 'oauth', auth: 'none' }, schema: { tags: ['userinfo'] } }, userinfoHandler);
  app.post('/userinfo', { config: { family: 'oauth', auth: 'none' }, schema: { tags: ['userinfo'] } }, userinfoHandler);
}
