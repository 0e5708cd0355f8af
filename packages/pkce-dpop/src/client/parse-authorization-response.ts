import { constantTimeEqual } from '../crypto/constant-time-equal.js';
import type { AuthorizationResponse, AuthorizationServerMetadata } from './client-types.js';
import { OAuthClientError, safeOAuthText } from './oauth-client-error.js';

export interface ExpectedAuthorizationResponse {
  metadata: AuthorizationServerMetadata;
  /** The `state` initiateAuthorization returned. */
  state: string;
  /** When given, the redirect must have come back to this URI (scheme, host, port and path). */
  redirectUri?: string;
}

function invalid(description: string): OAuthClientError {
  return new OAuthClientError('invalid_authorization_response', description);
}

function sameEndpoint(a: URL, b: URL): boolean {
  return a.protocol === b.protocol && a.host === b.host && a.pathname === b.pathname;
}

/**
 * Reads the redirect of an authorization response (spec 002 §4.2; RFC 6749 §4.1.2) from its query, in this order:
 * no repeated parameter (RFC 6749 §3.1); `iss` equal to the metadata issuer, and required when the server
 * advertises authorization_response_iss_parameter_supported (RFC 9207 §2.4, which applies to error responses
 * too); `state` equal to the one sent (constant time); then an `error` becomes an OAuthClientError
 * `authorization_error` carrying `oauthError`; else `code` is returned.
 */
export function parseAuthorizationResponse(
  redirectUrl: string | URL,
  expected: ExpectedAuthorizationResponse,
): AuthorizationResponse {
  let url: URL;
  try {
    url = new URL(redirectUrl);
  } catch {
    throw invalid('the redirect URL is not an absolute URL');
  }
  if (expected.redirectUri !== undefined && !sameEndpoint(url, new URL(expected.redirectUri))) {
    throw invalid('the response did not come back to the redirect URI');
  }
  const params = url.searchParams;
  for (const name of new Set(params.keys())) {
    if (params.getAll(name).length > 1) throw invalid(`parameter "${name}" is repeated`);
  }
  if (params.has('response')) throw invalid('JWT-secured authorization responses are not supported');

  const iss = params.get('iss');
  if (iss === null && expected.metadata.authorization_response_iss_parameter_supported === true) {
    throw invalid('the response lacks the iss parameter the server advertises (RFC 9207)');
  }
  if (iss !== null && iss !== expected.metadata.issuer) {
    throw invalid('the response iss is not the expected issuer (RFC 9207)');
  }

  const state = params.get('state');
  if (state === null) throw invalid('the response lacks state');
  if (!constantTimeEqual(state, expected.state)) throw invalid('the response state does not match');

  const error = params.get('error');
  if (error !== null) {
    const description = params.get('error_description');
    return throwAuthorizationError(error, description);
  }

  const code = params.get('code');
  if (code === null || code === '') throw invalid('the response lacks a code');
  return { code, state, iss };
}

function throwAuthorizationError(error: string, description: string | null): never {
  throw new OAuthClientError('authorization_error', `the authorization server answered ${safeOAuthText(error)}`, {
    oauthError: error,
    ...(description === null ? {} : { oauthErrorDescription: description }),
  });
}
