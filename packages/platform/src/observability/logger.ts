import pino, { type Logger, type LoggerOptions, type DestinationStream } from 'pino';

export type { Logger } from 'pino';

/**
 * JSON lines on stdout (001 §4.5). The context fields of every line: tenant_id, correlation_id, command_id,
 * trace_id, span_id, principal_id. Messages stay abstract; detail goes into fields, and fields that may carry a
 * secret or personal data are redacted by path, whatever the level. A test proves it (logger.test.ts).
 */
const SECRET_KEYS = [
  'password',
  'secret',
  'client_secret',
  'clientSecret',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'code_verifier',
  'authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'claims',
  'privateKey',
  'private_key',
  'masterKey',
  'vp_token',
  'dpop',
];

/**
 * Paths redacted from every log line: the secret keys at the top and two levels down, and the OAuth
 * authorization `code` where it arrives (a bare `*.code` would also blank error codes, which must stay).
 */
export const REDACTED_PATHS = [
  ...SECRET_KEYS.flatMap((k) => [`["${k}"]`, `*["${k}"]`, `*.*["${k}"]`]),
  'code',
  'body.code',
  'query.code',
  'req.body.code',
  'req.query.code',
];

export interface CreateLoggerOptions {
  level: string;
  service: string;
  destination?: DestinationStream;
}

/** Serializes errors without the fields where drivers put data (pg's `detail`, `where`, `query`). */
export function serializeError(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: 'non-error thrown' };
  const e = err as Error & { code?: unknown; statusCode?: unknown };
  const out: Record<string, unknown> = { type: e.name, message: e.message, stack: e.stack };
  if (typeof e.code === 'string') out.code = e.code;
  if (typeof e.statusCode === 'number') out.statusCode = e.statusCode;
  if (e.cause instanceof Error) out.cause = { type: e.cause.name, message: e.cause.message, code: (e.cause as { code?: unknown }).code };
  return out;
}

export function createLogger(options: CreateLoggerOptions): Logger {
  const config: LoggerOptions = {
    level: options.level,
    base: { service: options.service },
    messageKey: 'msg',
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: { err: serializeError, error: serializeError },
    formatters: { level: (label) => ({ level: label }) },
  };
  return options.destination ? pino(config, options.destination) : pino(config);
}
