import type { RoleApp } from '@tessera/platform';
import { badInput } from '../domain/errors.js';

/**
 * Bodies of the status-list API are JSON and nothing else. Any other content type is refused as a bad request
 * (issue 16 "wrong content type → 400"), in the API's own envelope, before the route runs.
 */
export function acceptJsonOnly(scope: RoleApp): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, scope.getDefaultJsonParser('error', 'error'));
  scope.addContentTypeParser('*', (_request, _payload, done) => {
    done(badInput('The request body must be application/json.', 'content-type'), undefined);
  });
}
