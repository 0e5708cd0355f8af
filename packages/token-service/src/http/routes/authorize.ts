import type { FastifyReply } from 'fastify';
import { commandContext, type RoleApp } from '@tessera/platform';
import type { TokenServiceContext } from '../../context.js';
import type { AuthorizeOutcome } from '../../commands/authorize-outcome.js';
import { startAuthorization, federationCallbackPath } from '../../commands/start-authorization.js';
import { completeUpstreamLogin } from '../../commands/complete-upstream-login.js';
import { formParams } from '../form.js';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Redirects are 303 (a form POST must never be answered 307: RFC 9700 §4.12), and every page forbids framing
 * (RFC 9700 §4.16, clickjacking).
 */
export function sendAuthorizeOutcome(reply: FastifyReply, outcome: AuthorizeOutcome) {
  reply
    .header('content-security-policy', "default-src 'none'; frame-ancestors 'none'")
    .header('x-frame-options', 'DENY')
    .header('cache-control', 'no-store');
  if (outcome.kind === 'redirect') return reply.code(303).header('location', outcome.location).send();
  const accept = String(reply.request.headers.accept ?? '');
  if (accept.includes('text/html')) {
    return reply
      .code(outcome.status)
      .type('text/html; charset=utf-8')
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in error</title></head><body><main><h1>This sign-in request cannot be completed</h1><p>${escapeHtml(outcome.description)}</p><p>Error: <code>${escapeHtml(outcome.error)}</code></p></main></body></html>`,
      );
  }
  return reply.code(outcome.status).send({ error: outcome.error, error_description: outcome.description });
}

export function registerAuthorizeRoutes(app: RoleApp, ctx: TokenServiceContext): void {
  const start = startAuthorization(ctx);
  const complete = completeUpstreamLogin(ctx);
  const config = { family: 'oauth' as const, auth: 'none' as const };
  const run = ctx.platform.commands;

  app.get('/authorize', { config, schema: { tags: ['authorization'] } }, async (request, reply) => {
    const params = new URL(request.url, 'http://x').searchParams;
    return sendAuthorizeOutcome(reply, await run.execute(start, commandContext(request), { params }));
  });
  // OIDC Core §3.1.2.1: the authorization endpoint also accepts POST with form parameters.
  app.post('/authorize', { config, schema: { tags: ['authorization'] } }, async (request, reply) => {
    const params = new URLSearchParams(formParams(request));
    return sendAuthorizeOutcome(reply, await run.execute(start, commandContext(request), { params }));
  });
  app.get(federationCallbackPath, { config, schema: { tags: ['authorization'] } }, async (request, reply) => {
    const query = new URL(request.url, 'http://x').searchParams;
    return sendAuthorizeOutcome(reply, await run.execute(complete, commandContext(request), { query }));
  });
}
