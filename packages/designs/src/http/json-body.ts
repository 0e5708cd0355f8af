import type { RoleApp } from '@tessera/platform';

/**
 * JSON bodies of the design API: Fastify's own parser (prototype and constructor keys refused), except that a
 * request naming the JSON content type but carrying nothing has no body rather than a broken one (a client such as
 * curl sends the header on a DELETE or a body-less refresh).
 */
export function registerJsonBody(scope: RoleApp): void {
  const parse = scope.getDefaultJsonParser('error', 'error');
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    parse(request, text, done);
  });
}
