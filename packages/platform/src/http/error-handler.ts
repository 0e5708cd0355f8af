import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
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
    // Every 503 tells the client when to retry (RFC 9110 §10.2.3; issue 13 §7), unless the error named a time.
    if (appError.status === 503 && appError.headers['retry-after'] === undefined)
      reply.header('retry-after', String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
    reply.header('cache-control', 'no-store');
    return reply.status(appError.status).send(renderError(family, appError));
  };
}

/** Retry-After of a 503 whose cause names no time of its own (a database or key service that does not answer). */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

/**
 * Errors Fastify meets before routing, which would otherwise answer Fastify's own `{error, message, statusCode}`:
 * a URL that does not decode (400), a path parameter over `maxParamLength` (414), an async constraint that failed.
 * They answer in the role's API family envelope like every other error (issue 14 §9).
 */
export function frameworkError(error: unknown): AppError {
  switch ((error as FastifyError)?.code) {
    case 'FST_ERR_BAD_URL':
      return new AppError('invalid_request', 'The URL is not valid.', { cause: error });
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('invalid_request', 'A path segment of the URL is too long.', { status: 414, cause: error });
  }
  return toAppError(error);
}

export function frameworkErrorHandler(role: string, family: ApiFamily, metrics: Metrics) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = frameworkError(error);
    if (appError.status >= 500) request.log.error({ err: error, error_code: appError.code }, 'request failed');
    metrics.httpErrors.inc({ role, route: 'unmatched', code: appError.wireCode ?? appError.code });
    reply.header('cache-control', 'no-store');
    return reply.status(appError.status).send(renderError(family, appError));
  };
}

/**
 * What Node's HTTP parser refuses before any request exists (the server's `clientError`): headers over the size limit
 * (431, RFC 6585 §5), a request that took too long to arrive (408), anything else malformed (400).
 */
export function clientError(error: { code?: string }): AppError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('invalid_request', 'The request headers are too large.', { status: 431, cause: error });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('invalid_request', 'The request took too long to arrive.', { status: 408, cause: error });
  }
  return new AppError('invalid_request', 'The request is malformed.', { cause: error });
}

/**
 * Fastify's `clientErrorHandler`: writes the answer on the socket in the family's envelope (as Fastify's default
 * does with its own body) and closes the connection; nothing to answer when the peer is gone.
 */
export function clientErrorHandler(family: ApiFamily) {
  return (error: Error & { code?: string }, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const appError = clientError(error);
    const body = JSON.stringify(renderError(family, appError));
    if (socket.writable)
      socket.write(
        `HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status] ?? 'Bad Request'}\r\n` +
          'Content-Type: application/json; charset=utf-8\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          'Cache-Control: no-store\r\nConnection: close\r\n\r\n' +
          body,
      );
    socket.destroy(error);
  };
}
