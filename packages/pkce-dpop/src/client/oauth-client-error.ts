/**
 * Client-side failures, with a stable `code`:
 * - insecure_request: an http URL without allowInsecureRequests, or to a host that is not loopback;
 * - metadata_error: no usable authorization server metadata (RFC 8414 §3);
 * - invalid_authorization_response: the redirect fails a check (state, iss per RFC 9207, a missing code);
 * - authorization_error: the server redirected with `error` (RFC 6749 §4.1.2.1); see `oauthError`;
 * - token_error: the token endpoint answered an error (RFC 6749 §5.2, RFC 9449 §5); see `oauthError`, `status`;
 * - invalid_token_response: the token response is malformed or fails its checks;
 * - request_failed: the request did not complete (network, timeout).
 * Messages never carry a token, a code, a code verifier or a secret. A response body can hold tokens, so library
 * errors that keep one are not kept as `cause`.
 */
export type OAuthClientErrorCode =
  | 'insecure_request'
  | 'metadata_error'
  | 'invalid_authorization_response'
  | 'authorization_error'
  | 'token_error'
  | 'invalid_token_response'
  | 'request_failed';

/**
 * Server-chosen text placed in a message keeps only the characters RFC 6749 §5.2 allows in `error` and
 * `error_description` (no control characters, quotes or backslashes) and at most 200 of them, so that a hostile
 * server or redirect cannot forge log lines.
 */
export function safeOAuthText(value: string): string {
  return value.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '').slice(0, 200);
}

export interface OAuthClientErrorDetails {
  /** The OAuth error code the server sent (`access_denied`, `invalid_grant`, `use_dpop_nonce`, ...). */
  oauthError?: string;
  oauthErrorDescription?: string;
  /** HTTP status of the response, when there was one. */
  status?: number;
  cause?: unknown;
}

export class OAuthClientError extends Error {
  readonly code: OAuthClientErrorCode;
  readonly description: string;
  readonly oauthError: string | null;
  readonly oauthErrorDescription: string | null;
  readonly status: number | null;

  constructor(code: OAuthClientErrorCode, description: string, details: OAuthClientErrorDetails = {}) {
    super(description, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'OAuthClientError';
    this.code = code;
    this.description = description;
    this.oauthError = details.oauthError ?? null;
    this.oauthErrorDescription = details.oauthErrorDescription ?? null;
    this.status = details.status ?? null;
  }
}
