import type { RoleApp } from '@tessera/platform';
import { AppError } from '@tessera/platform';

const FORM = 'application/x-www-form-urlencoded';

/**
 * application/x-www-form-urlencoded bodies (the wallet's direct_post and direct_post.jwt, OID4VP §8.2) for the
 * routes of `scope` only: each parameter once (a repeated parameter is refused: RFC 6749 §3.1, "parameters MUST
 * NOT be included more than once"), values as strings.
 */
export function registerFormBody(scope: RoleApp): void {
  if (scope.hasContentTypeParser(FORM)) scope.removeContentTypeParser(FORM);
  scope.addContentTypeParser(FORM, { parseAs: 'string' }, (_request, body, done) => {
    const params = new URLSearchParams(body as string);
    const out: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const [key, value] of params) {
      if (Object.hasOwn(out, key))
        return done(new AppError('invalid_request', `The parameter ${key.slice(0, 64)} is repeated.`), undefined);
      out[key] = value;
    }
    return done(null, { ...out });
  });
}
