import type { FastifyRequest } from 'fastify';
import type { RoleApp } from '@tessera/platform';
import { signinPath } from '../domain/authorization-params.js';
import { answerCandidates, readCandidates, type MatchChoice } from '../flow/match-confirmation.js';
import { CONFIRM_MATCH_PATH } from '../flow/read-signin-status.js';
import type { PortalRuntime } from '../flow/runtime.js';
import { confirmAccountPage } from '../pages/confirm-account-page.js';
import { messagePage } from '../pages/other-pages.js';
import { pageHandler, sendPage, type PageContext } from './page-reply.js';
import { PAGE_ROUTE } from './signin-routes.js';

/** A match id as the bridge makes them (README "Match confirmation"), bounded like the bridge's submit schema. */
const MATCH_ID = /^[\x21-\x7e]{1,128}$/;

/** The form's body: `decision=confirm&matchId=...` or `decision=decline`; anything else is no choice. */
export function choiceOf(body: unknown): MatchChoice | null {
  if (!(body instanceof URLSearchParams)) return null;
  const decisions = body.getAll('decision');
  if (decisions.length !== 1) return null;
  if (decisions[0] === 'decline') return { confirmed: false };
  const ids = body.getAll('matchId');
  if (decisions[0] !== 'confirm' || ids.length !== 1 || !MATCH_ID.test(ids[0]!)) return null;
  return { confirmed: true, selectedMatchId: ids[0]! };
}

/**
 * GET and POST /signin/confirm-account (issue 14 §11): the candidate page and the holder's answer. The post is taken
 * only from the portal's own origin (besides the SameSite=Lax cookie), like the identity verification's.
 */
export async function registerConfirmAccountRoutes(app: RoleApp, rt: PortalRuntime): Promise<void> {
  const transaction = (request: FastifyRequest, page: PageContext) =>
    rt.cookies.open(request.headers.cookie, page.call.tenantId);
  const plainPage = (page: PageContext, paragraph: string, restartHref: string | null) =>
    messagePage({
      language: page.language,
      t: page.t,
      title: page.t('errorTitle'),
      paragraphs: [paragraph],
      restartHref,
    });

  const showCandidates = async (request: FastifyRequest, page: PageContext, refused: boolean) => {
    const tx = await transaction(request, page);
    if (!tx) return { status: 400, html: plainPage(page, page.t('errorLost'), null) };
    const restartHref = signinPath(tx.params);
    const found = await readCandidates(rt, page.call, tx);
    if (found.kind === 'expired') return { status: 410, html: plainPage(page, page.t('statusExpired'), restartHref) };
    if (found.kind === 'elsewhere') return { status: 409, html: plainPage(page, page.t('confirmGone'), restartHref) };
    const html = confirmAccountPage({ ...page, candidates: found.candidates, restartHref, refused });
    return { status: refused ? 400 : 200, html };
  };

  app.get(
    CONFIRM_MATCH_PATH,
    { config: PAGE_ROUTE, schema: { hide: true } },
    pageHandler(async (request, reply, page) => {
      const shown = await showCandidates(request, page, false);
      return sendPage(reply, shown.status, page.language, shown.html);
    }),
  );

  await app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 4096 },
      (_request, body, done) => done(null, new URLSearchParams(body as string)),
    );
    scope.post(
      CONFIRM_MATCH_PATH,
      { config: PAGE_ROUTE, schema: { hide: true } },
      pageHandler(async (request, reply, page) => {
        const origin = request.headers.origin;
        if (origin !== undefined && origin !== rt.options.portalOrigin)
          return sendPage(reply, 403, page.language, plainPage(page, page.t('errorLost'), null));
        const tx = await transaction(request, page);
        if (!tx) return sendPage(reply, 400, page.language, plainPage(page, page.t('errorLost'), null));
        const choice = choiceOf(request.body);
        const outcome = choice ? await answerCandidates(rt, page.call, tx, choice) : ({ kind: 'refused' } as const);
        if (outcome.kind === 'redirect') {
          request.state.log.info(
            { session_id: tx.sessionId, confirmed: choice?.confirmed ?? false },
            'account confirmation answered',
          );
          // 303: the answer to a form post is a GET (RFC 9110 §15.4.4).
          return reply.code(303).header('cache-control', 'no-store').header('location', outcome.location).send();
        }
        if (outcome.kind === 'refused') {
          const shown = await showCandidates(request, page, true);
          return sendPage(reply, shown.status, page.language, shown.html);
        }
        const restartHref = signinPath(tx.params);
        const paragraph = outcome.kind === 'expired' ? page.t('statusExpired') : page.t('confirmGone');
        return sendPage(
          reply,
          outcome.kind === 'expired' ? 410 : 409,
          page.language,
          plainPage(page, paragraph, restartHref),
        );
      }),
    );
  });
}
