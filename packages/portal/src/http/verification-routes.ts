import type { FastifyRequest } from 'fastify';
import type { RoleApp } from '@tessera/platform';
import { callbackReasonMessage, REASON_PATTERN } from '../domain/callback-reasons.js';
import { signinPath } from '../domain/authorization-params.js';
import { readVerificationStatus, startIdentityVerification } from '../flow/identity-verification.js';
import type { PortalRuntime } from '../flow/runtime.js';
import { finishingPage, messagePage, verifyIdentityPage } from '../pages/other-pages.js';
import { pageContext, pageHandler, queryParam, sendPage, type PageContext } from './page-reply.js';
import { PAGE_ROUTE, statusJson } from './signin-routes.js';

/** The portal's own pages for a browser without (or with a foreign) transaction cookie. */
function lostPage({ language, t }: PageContext) {
  return messagePage({ language, t, title: t('errorTitle'), paragraphs: [t('errorLost')], restartHref: null });
}

/**
 * The sign-in form posts only from the portal's own page: a post from another origin is refused, besides the
 * SameSite=Lax cookie that such a post would not carry anyway.
 */
function sameOrigin(request: FastifyRequest, portalOrigin: string): boolean {
  const origin = request.headers.origin;
  return origin === undefined || origin === portalOrigin;
}

export async function registerVerificationRoutes(app: RoleApp, rt: PortalRuntime): Promise<void> {
  const { options } = rt;
  const transaction = (request: FastifyRequest, page: PageContext) =>
    rt.cookies.open(request.headers.cookie, page.call.tenantId);

  app.get(
    '/signin/verify-identity',
    { config: PAGE_ROUTE, schema: { hide: true } },
    pageHandler(async (request, reply, page) => {
      const tx = await transaction(request, page);
      if (!tx) return sendPage(reply, 400, page.language, lostPage(page));
      return sendPage(reply, 200, page.language, verifyIdentityPage({ ...page, restartHref: signinPath(tx.params) }));
    }),
  );

  // The button's form posts no fields; an encapsulated parser accepts its (empty) urlencoded body.
  await app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 4096 },
      (_request, _body, done) => done(null, {}),
    );
    scope.post(
      '/signin/verify-identity',
      { config: PAGE_ROUTE, schema: { hide: true } },
      pageHandler(async (request, reply, page) => {
        const { t, language } = page;
        if (!sameOrigin(request, options.portalOrigin)) return sendPage(reply, 403, language, lostPage(page));
        const tx = await transaction(request, page);
        if (!tx) return sendPage(reply, 400, language, lostPage(page));
        const outcome = await startIdentityVerification(rt, page.call, tx);
        // 303: the answer to a form post is a GET at the identity provider (RFC 9700 §4.12, never 307).
        if (outcome.kind === 'redirect')
          return reply.code(303).header('cache-control', 'no-store').header('location', outcome.location).send();
        const paragraphs = [
          outcome.kind === 'expired' ? t('statusExpired') : t('statusFailed', { reason: t('reasonDefault') }),
        ];
        return sendPage(
          reply,
          409,
          language,
          messagePage({ language, t, title: t('errorTitle'), paragraphs, restartHref: signinPath(tx.params) }),
        );
      }),
    );
  });

  // 000 §4.2 step 7: the bridge sends the browser here after the institution's login, with success or a reason.
  app.get(
    '/wallet/callback',
    { config: PAGE_ROUTE, schema: { hide: true } },
    pageHandler(async (request, reply, page) => {
      const { t, language } = page;
      const tx = await transaction(request, page);
      if (!tx) return sendPage(reply, 400, language, lostPage(page));
      const restartHref = signinPath(tx.params);
      const status = queryParam(request, 'status');
      if (queryParam(request, 'session') !== tx.sessionId) {
        return sendPage(
          reply,
          400,
          language,
          messagePage({ language, t, title: t('errorTitle'), paragraphs: [t('callbackMismatch')], restartHref }),
        );
      }
      if (status === 'success') {
        const poll = {
          url: `/api/signin/verification-status?tx=${tx.id}&lang=${language}`,
          intervalMs: Math.round(options.statusPollSeconds * 1000),
          maxPolls: options.idvPollAttempts,
          timeoutMessage: t('statusIdvTimeout'),
        };
        return sendPage(reply, 200, language, finishingPage({ ...page, poll, restartHref }));
      }
      const given = queryParam(request, 'reason');
      const reason = given && REASON_PATTERN.test(given) ? given : null;
      request.state.log.info({ reason: reason ?? 'none', session_id: tx.sessionId }, 'identity verification failed');
      const paragraphs = [t(callbackReasonMessage(reason))];
      return sendPage(
        reply,
        status === 'error' ? 200 : 400,
        language,
        messagePage({ language, t, title: t('callbackErrorTitle'), paragraphs, reference: reason, restartHref }),
      );
    }),
  );

  // 000 §8: the finishing page asks idvPollAttempts times at statusPollSeconds.
  app.get('/api/signin/verification-status', { config: PAGE_ROUTE, schema: { hide: true } }, async (request, reply) => {
    const { t, call } = pageContext(request);
    const tx = await rt.cookies.open(request.headers.cookie, call.tenantId);
    const answer = await readVerificationStatus(rt, call, tx, queryParam(request, 'tx'));
    return reply.header('cache-control', 'no-store').send(statusJson(t, answer));
  });
}
