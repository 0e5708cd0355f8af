import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isAppError, renderError, type ApiFamily } from '../errors/index.js';
import type { Metrics } from '../observability/metrics.js';

/**
 * The one error handler (fastify/demo style). Known errors keep their status and code; schema validation names
 * the field; framework errors about the body (media type, size, JSON syntax) are 4xx; anything else answers a
 * generic 500 server_error and is logged with its cause, never echoed.
 */
export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  const e = error as FastifyError & {
    validation?: Array<{ instancePath?: string; params?: Record<string, unknown>; message?: string }>;
  };
  if (e?.validation && e.validation.length > 0) {
    const v = e.validation[0]!;
    const missing = v.params?.missingProperty ?? v.params?.requiredProperties;
    const path = (v.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.');
    const field =
      typeof missing === 'string' ? (path ? `${path}.${missing}` : missing) : path || (e.validationContext ?? 'body');
    return new AppError(
      'invalid_request',
      `Invalid ${e.validationContext ?? 'request'}: ${field} ${v.message ?? 'is invalid'}.`,
      { field, cause: error },
    );
  }
  switch (e?.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'The content type is not supported.', { cause: error });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'The request body is too large.', { cause: error });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('invalid_request', 'The request body is not valid JSON.', { cause: error });
  }
  if (error instanceof SyntaxError)
    return new AppError('invalid_request', 'The request body could not be parsed.', { cause: error });
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new AppError('invalid_request', 'The request is invalid.', {
      status: e.statusCode === 415 ? 415 : 400,
      cause: error,
    });
  }
  return new AppError('server_error', 'Unexpected failure.', { cause: error });
}

export function errorHandler(role: string, defaultFamily: ApiFamily, metrics: Metrics) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error);
    const family = request.routeOptions.config?.family ?? defaultFamily;
    const log = request.state?.log ?? request.log;
    if (appError.status >= 500)
      log.error(
        { err: isAppError(error) ? (error.cause ?? error) : error, error_code: appError.code },
        'request failed',
      );
    metrics.httpErrors.inc({
      role,
      route: request.routeOptions.url ?? 'unmatched',
      code: appError.wireCode ?? appError.code,
    });
    for (const [k, v] of Object.entries(appError.headers)) reply.header(k, v);
    reply.header('cache-control', 'no-store');
    return reply.status(appError.status).send(renderError(family, appError));
  };
}
