import pino, { type Logger, type LoggerOptions, type DestinationStream } from 'pino';

export type { Logger } from 'pino';
import { createLogDestination } from './log-destination.js';
export { createLogDestination } from './log-destination.js';

/**
 * JSON lines on stdout (001 §4.5). The context fields of every line: tenant_id, correlation_id, command_id,
 * trace_id, span_id, principal_id. Messages stay abstract; detail goes into fields, and fields that may carry a
 * secret or personal data are redacted by name (scrubLogObject), whatever the level. A test proves it (logger.test.ts).
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

const SECRET = new Set(SECRET_KEYS);
/** Where an OAuth authorization `code` arrives; elsewhere `code` is an error code and must stay readable. */
const CODE_PARENTS = new Set(['body', 'query']);
const REDACTED = '[redacted]';

/**
 * Copy-on-write scrub of one log object: secret keys at the top and two levels down are replaced, and `code` at
 * the top and under body/query. It runs on every line and every child logger's bindings, so it is written for
 * speed (a few microseconds; pino's path-based redaction with wildcards cost ~60 µs per request).
 */
export function scrubLogObject<T>(obj: T, depth = 0, codeHere = true): T {
  if (obj === null || typeof obj !== 'object') return obj;
  let out: Record<string, unknown> | unknown[] = obj as Record<string, unknown>;
  const source = obj as Record<string, unknown>;
  for (const k in source) {
    const v = source[k];
    let r = v;
    if (SECRET.has(k) || (codeHere && k === 'code')) r = REDACTED;
    else if (depth < 2 && v !== null && typeof v === 'object' && !(v instanceof Error))
      r = scrubLogObject(v, depth + 1, CODE_PARENTS.has(k));
    if (r !== v) {
      if (out === source) out = Array.isArray(source) ? [...source] : { ...source };
      (out as Record<string, unknown>)[k] = r;
    }
  }
  return out as T;
}

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
  if (e.cause instanceof Error)
    out.cause = { type: e.cause.name, message: e.cause.message, code: (e.cause as { code?: unknown }).code };
  return out;
}

export function createLogger(options: CreateLoggerOptions): Logger {
  const config: LoggerOptions = {
    level: options.level,
    base: { service: options.service },
    messageKey: 'msg',
    // Epoch milliseconds (pino's default): formatting an ISO date on every line cost ~3% of a request.
    timestamp: pino.stdTimeFunctions.epochTime,
    serializers: { err: serializeError, error: serializeError },
    formatters: {
      level: (label) => ({ level: label }),
      log: (object) => scrubLogObject(object),
    },
  };
  const logger = pino(config, options.destination ?? createLogDestination(1));
  return withScrubbedChildren(logger);
}

/** pino does not format child bindings: scrub them as each child is made, and let children do the same. */
function withScrubbedChildren(logger: Logger): Logger {
  const child = logger.child as unknown as (
    this: Logger,
    bindings: pino.Bindings,
    options?: pino.ChildLoggerOptions,
  ) => Logger;
  const scrubbingChild = function (this: Logger, bindings: pino.Bindings, options?: pino.ChildLoggerOptions) {
    const made = child.call(this, scrubLogObject(bindings), options);
    made.child = scrubbingChild as unknown as typeof made.child;
    return made;
  };
  logger.child = scrubbingChild as unknown as typeof logger.child;
  return logger;
}
