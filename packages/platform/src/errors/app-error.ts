/**
 * One error model for the whole system. Every failure that a caller may see is an AppError with a stable code;
 * each API family maps the code to its own envelope (see ./envelopes.ts). Anything that is not an AppError
 * leaves as a generic 500 server_error: never a stack trace, SQL text or a secret (001 §7, 000 §7).
 */
export type ErrorCode =
  | 'invalid_request'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'unauthenticated'
  | 'policy_denied'
  | 'tenant_not_resolved'
  | 'not_found'
  | 'already_exists'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'service_unavailable'
  | 'server_error';

const STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  invalid_token: 401,
  unauthenticated: 401,
  insufficient_scope: 403,
  policy_denied: 403,
  // A request that resolves no tenant is a client error: the caller reached a host or presented a token that
  // names no tenant we serve. 400 (not 404) keeps it distinct from a missing resource. docs/decisions.md.
  tenant_not_resolved: 400,
  not_found: 404,
  already_exists: 409,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  service_unavailable: 503,
  server_error: 500,
};

export interface AppErrorOptions {
  /** Override the HTTP status the code maps to (for codes shared by several statuses). */
  status?: number;
  /** A more specific, API-level error code to put on the wire (e.g. `session_expired`, `invalid_grant`). */
  wireCode?: string;
  /** The request field the error is about, for validation failures. */
  field?: string;
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly wireCode: string | undefined;
  readonly field: string | undefined;
  readonly headers: Record<string, string>;
  /** Only errors below 500 expose their message; a 5xx always answers with a generic description. */
  readonly expose: boolean;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = options.status ?? STATUS[code];
    this.wireCode = options.wireCode;
    this.field = options.field;
    this.headers = options.headers ?? {};
    this.expose = this.status < 500;
  }
}

export const isAppError = (value: unknown): value is AppError => value instanceof AppError;

export const invalidRequest = (message: string, field?: string) =>
  new AppError('invalid_request', message, field === undefined ? {} : { field });

export const notFound = (message: string, wireCode?: string) =>
  new AppError('not_found', message, wireCode === undefined ? {} : { wireCode });
