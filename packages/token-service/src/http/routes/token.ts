import type { FastifyReply, FastifyRequest } from 'fastify';
import { decodeJwt } from 'jose';
import { commandContext, isAppError, recordAuthenticationFailure, type RoleApp } from '@tessera/platform';
import type { TokenServiceContext } from '../../context.js';
import { claimedClientId } from '../../clients/authentication-guard.js';
import { ClientRequestAuthenticator, clientCommand, type ClientRequest } from '../../commands/client-request.js';
import { requestToken } from '../../commands/request-token.js';
import { introspectToken } from '../../commands/introspect-token.js';
import { revokeToken } from '../../commands/revoke-token.js';
import { getUserinfo } from '../../commands/get-userinfo.js';
import { oauthError } from '../../domain/oauth-error.js';
import { NO_STORE } from '../form.js';
import { formSchemaError, registerFormOnlyBody } from '../form-body.js';
import { FORM_CONSUMES, TokenLookupBody, TokenRequestBody } from '../token-schemas.js';
import { presentedAccessToken } from '../access-token.js';

/**
 * What the commands of the client-authenticating endpoints take from a request: its form, which passed the route's
 * body schema (one string per parameter), its headers (client credentials, proofs) and its source.
 */
const clientRequest = (request: FastifyRequest): ClientRequest => ({
  form: request.body as Readonly<Record<string, string>>,
  headers: request.headers,
  source: { address: request.ip, endpoint: request.state.route },
});

/** The token an introspection (RFC 7662 §2.1) or revocation (RFC 7009 §2.1) request names. */
const namedToken = (form: Readonly<Record<string, string>>) => ({ token: form.token!, hint: form.token_type_hint });

export async function registerTokenRoutes(app: RoleApp, ctx: TokenServiceContext): Promise<void> {
  const authenticator = new ClientRequestAuthenticator(ctx);
  const token = requestToken(ctx, authenticator);
  const introspect = clientCommand(
    ctx,
    authenticator,
    'token-service.introspection.request',
    introspectToken(ctx),
    namedToken,
  );
  const revoke = clientCommand(ctx, authenticator, 'token-service.revocation.request', revokeToken(ctx), namedToken);
  const userinfo = getUserinfo(ctx);
  const run = ctx.platform.commands;
  // Limited per address and per authenticated client by the commands' guard, never per claimed client id alone.
  const config = { family: 'oauth' as const, auth: 'none' as const, rateLimit: false as const };
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
      const body = (request.body ?? {}) as Record<string, unknown>;
      recordAuthenticationFailure(ctx.platform, request, {
        method: 'dpop_proof',
        reason: 'invalid_dpop_proof',
        claimedPrincipal: claimedClientId(request.headers.authorization, body) ?? null,
      });
    }
    done();
  });

  // The client-authenticating endpoints take a form and nothing else; the schema refuses a malformed one.
  await app.register(async (scope: RoleApp) => {
    await registerFormOnlyBody(scope);
    const form = (body: typeof TokenRequestBody | typeof TokenLookupBody) => ({
      config,
      schema: { tags: ['token'], consumes: FORM_CONSUMES, body },
      schemaErrorFormatter: formSchemaError,
    });

    scope.post('/token', form(TokenRequestBody), async (request, reply) => {
      reply.headers(NO_STORE);
      const answer = await run.execute(token, commandContext(request), { ...clientRequest(request), url: request.url });
      return reply.headers(answer.headers).send(answer.body);
    });

    scope.post('/introspect', form(TokenLookupBody), async (request, reply) => {
      reply.headers(NO_STORE);
      return run.execute(introspect, commandContext(request), clientRequest(request));
    });

    scope.post('/revoke', form(TokenLookupBody), async (request, reply) => {
      reply.headers(NO_STORE);
      await run.execute(revoke, commandContext(request), clientRequest(request));
      return reply.code(200).send();
    });
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
