import type { RoleApp } from '@tessera/platform';

/**
 * JSON bodies of the party routes (registered on their scope): the framework's parser, refusing prototype and
 * constructor keys as the role app does; but a request that names the JSON content type and sends nothing (a
 * DELETE, or the body-less PUT /groups/{id}/members/{memberId}, from a client that sets the header on every call)
 * has no body rather than a broken one. A route that needs a body still refuses its absence (400, schema).
 */
export function registerJsonBody(scope: RoleApp): void {
  const parse = scope.getDefaultJsonParser('error', 'error');
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if ((body as string).length === 0) {
      done(null, undefined);
      return;
    }
    parse(request, body as string, done);
  });
}
