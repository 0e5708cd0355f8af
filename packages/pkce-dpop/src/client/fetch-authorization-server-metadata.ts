import * as oauth from 'oauth4webapi';
import { checkRequestUrl } from './check-request-url.js';
import type { AuthorizationServerMetadata, HttpRequestOptions } from './client-types.js';
import { OAuthClientError } from './oauth-client-error.js';
import { toRequestOptions } from './oauth4webapi-adapter.js';

const ENDPOINTS = [
  'authorization_endpoint',
  'token_endpoint',
  'introspection_endpoint',
  'revocation_endpoint',
  'userinfo_endpoint',
  'pushed_authorization_request_endpoint',
  'jwks_uri',
] as const;

/**
 * Fetches authorization server metadata (spec 002 §4.2): first RFC 8414 §3.1 (`/.well-known/oauth-authorization-
 * server` inserted between host and path), then, when that answers anything but 200, OpenID Connect Discovery 1.0
 * §4 (`/.well-known/openid-configuration` appended to the issuer). The published `issuer` must be the issuer asked
 * for (RFC 8414 §3.3) and every endpoint must pass the same https rule as the issuer.
 */
export async function fetchAuthorizationServerMetadata(
  issuer: string | URL,
  options: HttpRequestOptions = {},
): Promise<AuthorizationServerMetadata> {
  const { url, insecure } = checkRequestUrl(issuer, 'issuer', options.allowInsecureRequests);
  if (url.search !== '' || url.hash !== '') {
    throw new OAuthClientError('metadata_error', 'issuer must not have a query or fragment (RFC 8414 §2)');
  }
  const statuses: number[] = [];
  for (const algorithm of ['oauth2', 'oidc'] as const) {
    let response: Response;
    try {
      response = await oauth.discoveryRequest(url, { algorithm, ...toRequestOptions(options, insecure) });
    } catch (cause) {
      throw new OAuthClientError('request_failed', 'authorization server metadata request failed', { cause });
    }
    if (response.status !== 200) {
      statuses.push(response.status);
      await response.body?.cancel();
      continue;
    }
    let metadata: AuthorizationServerMetadata;
    try {
      metadata = (await oauth.processDiscoveryResponse(url, response)) as AuthorizationServerMetadata;
    } catch (error) {
      const message = error instanceof Error ? error.message : 'unreadable response';
      throw new OAuthClientError('metadata_error', `authorization server metadata rejected: ${message}`);
    }
    for (const endpoint of ENDPOINTS) {
      const value = metadata[endpoint];
      if (value !== undefined) checkRequestUrl(value, endpoint, options.allowInsecureRequests);
    }
    return metadata;
  }
  throw new OAuthClientError(
    'metadata_error',
    `no authorization server metadata at the RFC 8414 or OpenID Connect location (HTTP ${statuses.join(', ')})`,
  );
}
