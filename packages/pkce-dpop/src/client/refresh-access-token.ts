import * as oauth from 'oauth4webapi';
import type { DpopContext } from '../dpop/dpop-types.js';
import type {
  AuthorizationServerMetadata,
  ClientAuthentication,
  HttpRequestOptions,
  TokenResponse,
} from './client-types.js';
import { requestToken } from './request-token.js';

export interface RefreshAccessTokenOptions extends HttpRequestOptions {
  metadata: AuthorizationServerMetadata;
  clientId: string;
  clientAuthentication: ClientAuthentication;
  refreshToken: string;
  /** Must hold the key the refresh token is bound to, for a public client (RFC 9449 §5). */
  dpopContext?: DpopContext | null;
  /** Optional narrower scope (RFC 6749 §6). */
  scope?: string;
}

/**
 * Refreshes an access token (spec 002 §4.2; RFC 6749 §6), with a DPoP proof when a context is given. Servers that
 * rotate refresh tokens return a new one: use `refreshToken` of the result from now on.
 */
export async function refreshAccessToken(options: RefreshAccessTokenOptions): Promise<TokenResponse> {
  const parameters = new URLSearchParams({ refresh_token: options.refreshToken });
  if (options.scope !== undefined) parameters.set('scope', options.scope);
  return requestToken({
    ...options,
    grantType: 'refresh_token',
    parameters,
    dpopContext: options.dpopContext,
    process: (as, client, response) => oauth.processRefreshTokenResponse(as, client, response),
  });
}
