import formbody from '@fastify/formbody';
import type { FastifySchemaValidationError } from 'fastify';
import type { RoleApp } from '@tessera/platform';
import { oauthError } from '../domain/oauth-error.js';

const NOT_A_FORM = 'The body must be application/x-www-form-urlencoded.';

/**
 * The body of the routes of `scope` is a form, and only a form (RFC 6749 §3.2, §4.1.3; RFC 7662 §2.1; RFC 7009 §2.1):
 * any other media type is invalid_request (400) in the OAuth envelope, before a route is run. A parameter sent
 * more than once arrives as a list, which the route's body schema refuses (`formSchemaError`).
 */
export async function registerFormOnlyBody(scope: RoleApp): Promise<void> {
  scope.removeAllContentTypeParsers();
  await scope.register(formbody);
  scope.addContentTypeParser('*', (_request, _payload, done) => done(oauthError('invalid_request', NOT_A_FORM)));
}

/**
 * `schemaErrorFormatter` of a form route: a body its schema refuses is invalid_request (RFC 6749 §5.2) naming the
 * parameter. A form holds only strings, so a parameter that is not one was repeated.
 */
export function formSchemaError(errors: FastifySchemaValidationError[]): Error {
  const error = errors[0];
  if (!error) return oauthError('invalid_request', 'The request body is invalid.');
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const name = parameterName(error.instancePath) ?? params.missingProperty;
  if (name === undefined) return oauthError('invalid_request', NOT_A_FORM);
  const shown = name.slice(0, 64);
  switch (error.keyword) {
    case 'required':
    case 'minLength':
      return oauthError('invalid_request', `${shown} is required.`);
    case 'type':
      return oauthError('invalid_request', `${shown} is repeated.`);
    default:
      return oauthError('invalid_request', `${shown} is invalid.`);
  }
}

/** The parameter a JSON pointer into the form names (RFC 6901: `~1` is `/`, `~0` is `~`). */
function parameterName(instancePath: string): string | undefined {
  if (!instancePath) return undefined;
  return instancePath.slice(1).split('/')[0]!.replaceAll('~1', '/').replaceAll('~0', '~');
}
