import type { AppError, ErrorCode } from './app-error.js';

/**
 * The API families and their error envelopes (issue: one error model, mapped per family).
 * - oauth: the bridge, the external API and the token service: `{error, error_description}` (000 §7, RFC 6749 §5.2).
 * - design: `{code, message}` with the codes of 001 §7 (ILLEGAL_ARGUMENT_ERROR, NOT_FOUND_ERROR, ...).
 * - party: `{code, message}` like the design API (001 §7 names only statuses for it; we keep one shape).
 * - platform: operational and administrative endpoints; same shape as oauth.
 */
export type ApiFamily = 'oauth' | 'design' | 'party' | 'platform';

const DESIGN_CODES: Partial<Record<ErrorCode, string>> = {
  invalid_request: 'ILLEGAL_ARGUMENT_ERROR',
  not_found: 'NOT_FOUND_ERROR',
  already_exists: 'ALREADY_EXISTS_ERROR',
  policy_denied: 'POLICY_DENIED',
  insufficient_scope: 'POLICY_DENIED',
  invalid_token: 'UNAUTHENTICATED',
  unauthenticated: 'UNAUTHENTICATED',
  tenant_not_resolved: 'TENANT_NOT_RESOLVED',
  conflict: 'CONFLICT_ERROR',
  payload_too_large: 'PAYLOAD_TOO_LARGE',
  unsupported_media_type: 'UNSUPPORTED_MEDIA_TYPE',
  rate_limited: 'RATE_LIMITED',
  service_unavailable: 'SERVICE_UNAVAILABLE',
};

/** Default wire codes of the oauth family where the internal code is not itself the standard word. */
const OAUTH_CODES: Partial<Record<ErrorCode, string>> = {
  policy_denied: 'access_denied',
  unauthenticated: 'invalid_token',
  tenant_not_resolved: 'invalid_request',
  already_exists: 'conflict',
  payload_too_large: 'invalid_request',
  unsupported_media_type: 'invalid_request',
  service_unavailable: 'temporarily_unavailable',
};

export const GENERIC_SERVER_ERROR = 'The server could not complete the request.';

export function renderError(family: ApiFamily, error: AppError): Record<string, unknown> {
  const message = error.expose ? error.message : GENERIC_SERVER_ERROR;
  if (family === 'design' || family === 'party') {
    const code =
      error.status >= 500 && error.code !== 'service_unavailable'
        ? 'UNKNOWN_ERROR'
        : (error.wireCode ?? DESIGN_CODES[error.code] ?? 'UNKNOWN_ERROR');
    return error.field === undefined ? { code, message } : { code, message, field: error.field };
  }
  const code =
    error.status >= 500 && error.code !== 'service_unavailable'
      ? 'server_error'
      : (error.wireCode ?? OAUTH_CODES[error.code] ?? error.code);
  return error.field === undefined
    ? { error: code, error_description: message }
    : { error: code, error_description: message, field: error.field };
}
