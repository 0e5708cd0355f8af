import type { FastifyReply, FastifyRequest } from 'fastify';
import { isAppError } from '@tessera/platform';
import type { CallContext } from '../clients/service-call.js';
import { languageFrom, translator, type Language, type Translate } from '../i18n/negotiate.js';
import { PAGE_HEADERS } from '../pages/html.js';
import { messagePage } from '../pages/other-pages.js';

export interface PageContext {
  language: Language;
  t: Translate;
  call: CallContext;
}

export const queryParam = (request: FastifyRequest, name: string): string | undefined => {
  const value = (request.query as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
};

/** The language (Accept-Language, or the page's own `lang` on its script's requests) and the service-call context. */
export function pageContext(request: FastifyRequest): PageContext {
  const language = languageFrom(queryParam(request, 'lang'), request.headers['accept-language']);
  return {
    language,
    t: translator(language),
    call: { tenantId: request.state.tenantId!, correlationId: request.state.correlationId },
  };
}

export function sendPage(reply: FastifyReply, status: number, language: Language, body: string) {
  return reply.code(status).headers(PAGE_HEADERS).header('content-language', language).send(body);
}

/**
 * Wraps a page handler: a failing service (bridge or token service down, slow or refusing the portal) gives the user
 * a page that says so in their language, with a 503, and the cause goes to the log, not to the page.
 */
export function pageHandler(
  handler: (request: FastifyRequest, reply: FastifyReply, page: PageContext) => Promise<unknown>,
) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const page = pageContext(request);
    try {
      return await handler(request, reply, page);
    } catch (error) {
      request.state.log.error(
        {
          err: isAppError(error) ? (error.cause ?? error) : error,
          code: isAppError(error) ? error.code : 'server_error',
        },
        'portal page failed',
      );
      const { t, language } = page;
      return sendPage(
        reply,
        503,
        language,
        messagePage({ language, t, title: t('errorTitle'), paragraphs: [t('errorUnavailable')], restartHref: null }),
      );
    }
  };
}
