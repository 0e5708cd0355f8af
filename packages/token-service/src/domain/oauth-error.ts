import { AppError, type ErrorCode } from '@tessera/platform';

/** The error codes of RFC 6749 §5.2, RFC 7009 §2.2.1 and RFC 9449 §7 the token service answers with. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'request_not_supported'
  | 'request_uri_not_supported'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_authorization_details'
  | 'invalid_target'
  | 'unsupported_token_type'
  | 'unsupported_response_type'
  | 'access_denied'
  | 'login_required'
  | 'invalid_dpop_proof'
  | 'use_dpop_nonce'
  | 'invalid_token'
  | 'temporarily_unavailable'
  | 'server_error';

const INTERNAL: Record<OAuthErrorCode, ErrorCode> = {
  invalid_request: 'invalid_request',
  request_not_supported: 'invalid_request',
  request_uri_not_supported: 'invalid_request',
  invalid_client: 'unauthenticated',
  invalid_grant: 'invalid_request',
  unauthorized_client: 'invalid_request',
  unsupported_grant_type: 'invalid_request',
  invalid_scope: 'invalid_request',
  invalid_authorization_details: 'invalid_request',
  invalid_target: 'invalid_request',
  unsupported_token_type: 'invalid_request',
  unsupported_response_type: 'invalid_request',
  access_denied: 'policy_denied',
  login_required: 'invalid_request',
  invalid_dpop_proof: 'invalid_request',
  use_dpop_nonce: 'invalid_request',
  invalid_token: 'invalid_token',
  temporarily_unavailable: 'service_unavailable',
  server_error: 'server_error',
};

export function oauthError(
  code: OAuthErrorCode,
  description: string,
  options: { status?: number; headers?: Record<string, string> } = {},
): AppError {
  return new AppError(INTERNAL[code], description, { wireCode: code, ...options });
}

export const isOAuthErrorCode = (code: string): code is OAuthErrorCode => code in INTERNAL;
