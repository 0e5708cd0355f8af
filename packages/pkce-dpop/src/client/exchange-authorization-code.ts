import * as oauth from 'oauth4webapi';
import type { DpopContext } from '../dpop/dpop-types.js';
import type { PkceData } from '../pkce/pkce-types.js';
import type {
  AuthorizationServerMetadata,
  ClientAuthentication,
  HttpRequestOptions,
  TokenResponse,
} from './client-types.js';
import { requestToken } from './request-token.js';

export interface ExchangeAuthorizationCodeOptions extends HttpRequestOptions {
  metadata: AuthorizationServerMetadata;
  /** Sent by every client; spec 002 §4.2 lists no clientId, but a public client has nothing else to name itself. */
  clientId: string;
  /** null for a public client (spec 002 §4.2). */
  clientAuthentication: ClientAuthentication;
  authorizationCode: string;
  redirectUri: string;
  pkceData: PkceData;
  dpopContext?: DpopContext | null;
  /** The `nonce` of the authorization request; when set, an ID token with that nonce is required. */
  expectedNonce?: string | null;
}

/**
 * Redeems an authorization code (spec 002 §4.2; RFC 6749 §4.1.3, RFC 7636 §4.5 `code_verifier`), with a DPoP
 * proof when a context is given (RFC 9449 §5). An ID token in the response is checked for iss, aud, exp, iat and
 * nonce (OpenID Connect Core §3.1.3.7; its signature is not needed over the direct TLS channel, §3.1.3.7 step 6).
 */
export async function exchangeAuthorizationCode(options: ExchangeAuthorizationCodeOptions): Promise<TokenResponse> {
  const parameters = new URLSearchParams({
    code: options.authorizationCode,
    redirect_uri: options.redirectUri,
    code_verifier: options.pkceData.codeVerifier,
  });
  const expectedNonce = options.expectedNonce ?? undefined;
  return requestToken({
    ...options,
    grantType: 'authorization_code',
    parameters,
    dpopContext: options.dpopContext,
    process: (as, client, response) =>
      oauth.processAuthorizationCodeResponse(
        as,
        client,
        response,
        expectedNonce === undefined ? undefined : { expectedNonce },
      ),
  });
}
