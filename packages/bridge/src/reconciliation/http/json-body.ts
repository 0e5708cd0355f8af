import { AppError, errorHandler, type FastifyRequest, type Metrics, type RoleApp } from '@tessera/platform';
import { MAX_AUXILIARY_BYTES } from '../domain/auxiliary-data.js';
import { dataTooLarge } from '../domain/errors.js';
import { parseStrictJson } from '../domain/strict-json.js';

/**
 * The request bodies of the external API's routes (registered on their scope only): `application/json` in UTF-8
 * and nothing else (415 otherwise), read as bytes and parsed strictly (domain/strict-json.ts: invalid UTF-8,
 * duplicate names, `__proto__`, nesting beyond 64 levels → 400). A body over a route's limit is 413; on the
 * auxiliary PUT, whose limit sits a little above 64 KB so that any body holding up to 64 KB of data reaches the
 * exact check of the command, it is data_too_large like the check's own refusal.
 */
export function registerStrictJsonBody(scope: RoleApp, metrics: Metrics, auxiliaryRoute: string): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(String(request.headers['content-type']))?.[1];
    if (charset !== undefined && charset.toLowerCase() !== 'utf-8') {
      done(new AppError('unsupported_media_type', 'JSON bodies are sent in UTF-8.'), undefined);
      return;
    }
    // A DELETE (or GET) that names a JSON content type but carries nothing has no body, not a broken one.
    if ((body as Buffer).length === 0 && (request.method === 'DELETE' || request.method === 'GET')) {
      done(null, undefined);
      return;
    }
    try {
      done(null, parseStrictJson(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  // The role app's handler, with one mapping in front: the route's body limit on the auxiliary PUT.
  const handle = errorHandler('bridge', 'oauth', metrics);
  scope.setErrorHandler((error: unknown, request: FastifyRequest, reply) => {
    const tooLarge = (error as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE';
    const onAuxiliary = request.routeOptions.url === auxiliaryRoute && request.method === 'PUT';
    return handle(tooLarge && onAuxiliary ? dataTooLarge(MAX_AUXILIARY_BYTES) : error, request, reply);
  });
}
