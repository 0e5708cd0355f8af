import type { RoleApp } from '@tessera/platform';
import { signinPath } from '../domain/authorization-params.js';
import { PAGE_MESSAGES } from '../domain/signin-state.js';
import type { StatusAnswer } from '../flow/read-signin-status.js';
import { readSigninStatus } from '../flow/read-signin-status.js';
import type { PortalRuntime } from '../flow/runtime.js';
import { startSignin } from '../flow/start-signin.js';
import type { Translate } from '../i18n/negotiate.js';
import { messagePage } from '../pages/other-pages.js';
import { signinPage } from '../pages/signin-page.js';
import { pageContext, pageHandler, queryParam, sendPage } from './page-reply.js';

/** Browser routes resolve the tenant from the host like every role (platform default) and authenticate no bearer. */
export const PAGE_ROUTE = { auth: 'none' as const };

/** The JSON the page's script reads: the state, its sentence in the page's language, and where to go next. */
export function statusJson(t: Translate, answer: StatusAnswer) {
  const message = t(PAGE_MESSAGES[answer.state], answer.reason ? { reason: t(answer.reason) } : {});
  return { state: answer.state, message, final: answer.final, ...(answer.next ? { next: answer.next } : {}) };
}

export function registerSigninRoutes(app: RoleApp, rt: PortalRuntime): void {
  const { options } = rt;

  app.get(
    '/signin',
    { config: PAGE_ROUTE, schema: { hide: true } },
    pageHandler(async (request, reply, { language, t, call }) => {
      // Parsed from the raw URL: a repeated parameter must be seen as repeated (RFC 6749 §3.1), not merged.
      const outcome = await startSignin(rt, call, new URL(request.url, 'http://portal.invalid').searchParams);
      if (outcome.kind === 'redirect')
        return reply.code(303).header('cache-control', 'no-store').header('location', outcome.location).send();
      if (outcome.kind === 'error_page') {
        request.state.log.info({ error: outcome.error }, 'sign-in request refused');
        const paragraphs = [t('errorInvalidRequest'), t('errorDetails', { detail: outcome.description })];
        return sendPage(
          reply,
          400,
          language,
          messagePage({ language, t, title: t('errorTitle'), paragraphs, reference: outcome.error, restartHref: null }),
        );
      }
      request.state.log.info(
        { client_id: outcome.tx.params.client_id, session_id: outcome.tx.sessionId },
        'sign-in started',
      );
      reply.header('set-cookie', outcome.setCookie);
      const poll = {
        url: `/api/signin/status?tx=${outcome.tx.id}&lang=${language}`,
        intervalMs: Math.round(options.statusPollSeconds * 1000),
        maxPolls: Math.ceil(options.maxWaitSeconds / options.statusPollSeconds),
        timeoutMessage: t('statusTimeout'),
      };
      const body = signinPage({
        language,
        t,
        clientName: outcome.clientName,
        qrCodeDataUri: outcome.session.qrCodeDataUri,
        requestUri: outcome.session.requestUri,
        poll,
        restartHref: signinPath(outcome.tx.params),
      });
      return sendPage(reply, 200, language, body);
    }),
  );

  // Polled by the page every statusPollSeconds (000 §8). Failures of the bridge answer 503 (the script keeps trying).
  app.get('/api/signin/status', { config: PAGE_ROUTE, schema: { hide: true } }, async (request, reply) => {
    const { t, call } = pageContext(request);
    const tx = await rt.cookies.open(request.headers.cookie, call.tenantId);
    const answer = await readSigninStatus(rt, call, tx, queryParam(request, 'tx'));
    return reply.header('cache-control', 'no-store').send(statusJson(t, answer));
  });
}
