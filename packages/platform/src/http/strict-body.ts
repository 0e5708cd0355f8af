import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { FastifyRequest } from 'fastify';
import { invalidRequest } from '../errors/index.js';

/**
 * A preHandler that checks a JSON body as sent. The role app's validator coerces types (querystrings need it), so
 * `{"displayName": 42}` would pass as "42"; a body is checked first without coercion, against the same schema
 * (TypeBox's compiled validator): a wrong type is 400 naming the field, like any other malformed body (001 §7).
 */
export function strictBody(schema: TSchema) {
  const validator = Compile(schema);
  return (request: FastifyRequest, _reply: unknown, done: (error?: Error) => void) => {
    if (validator.Check(request.body)) {
      done();
      return;
    }
    const errors = validator.Errors(request.body);
    // The schema-level `false` of a closed object repeats the additionalProperties error: skip it.
    const error = errors.find((e) => e.keyword !== 'boolean') ?? errors[0];
    const params = (error?.params ?? {}) as { additionalProperties?: string[]; requiredProperties?: string[] };
    const path = (error?.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.');
    const leaf = params.requiredProperties?.[0] ?? params.additionalProperties?.[0];
    const field = [path, leaf].filter(Boolean).join('.') || 'body';
    const what = params.additionalProperties ? 'is not a field of this resource' : (error?.message ?? 'is invalid');
    done(invalidRequest(`Invalid body: ${field} ${what}.`, field));
  };
}
