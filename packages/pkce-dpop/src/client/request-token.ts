import * as oauth from 'oauth4webapi';
import { createDpopProof } from '../dpop/create-dpop-proof.js';
import type { DpopContext } from '../dpop/dpop-types.js';
import { checkRequestUrl } from './check-request-url.js';
import type {
  AuthorizationServerMetadata,
  ClientAuthentication,
  HttpRequestOptions,
  TokenResponse,
} from './client-types.js';
import { OAuthClientError, safeOAuthText } from './oauth-client-error.js';
import { toAuthorizationServer, toClientAuth, toRequestOptions } from './oauth4webapi-adapter.js';

export interface TokenRequest extends HttpRequestOptions {
  metadata: AuthorizationServerMetadata;
  clientId: string;
  clientAuthentication: ClientAuthentication;
  grantType: string;
  parameters: URLSearchParams;
  dpopContext: DpopContext | null | undefined;
  /** oauth4webapi's check of the response for this grant. */
  process: (
    as: oauth.AuthorizationServer,
    client: oauth.Client,
    response: Response,
  ) => Promise<oauth.TokenEndpointResponse>;
}

/** Maps what oauth4webapi throws to OAuthClientError, keeping no response body (it may hold tokens). */
function toClientError(error: unknown): OAuthClientError {
  if (error instanceof OAuthClientError) return error;
  if (error instanceof oauth.ResponseBodyError) {
    return new OAuthClientError('token_error', `the token endpoint answered ${safeOAuthText(error.error)}`, {
      oauthError: error.error,
      ...(error.error_description === undefined ? {} : { oauthErrorDescription: error.error_description }),
      status: error.status,
    });
  }
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    const challenge = error.cause[0];
    const oauthError = challenge?.parameters.error ?? 'invalid_client';
    const description = challenge?.parameters.error_description;
    return new OAuthClientError('token_error', `the token endpoint answered ${safeOAuthText(oauthError)}`, {
      oauthError,
      ...(description === undefined ? {} : { oauthErrorDescription: description }),
      status: error.status,
    });
  }
  if (error instanceof oauth.OperationProcessingError || error instanceof oauth.UnsupportedOperationError) {
    return new OAuthClientError('invalid_token_response', `token response rejected: ${error.message}`);
  }
  return new OAuthClientError('request_failed', 'the token request failed', { cause: error });
}

function toTokenResponse(result: oauth.TokenEndpointResponse, dpopNonce: string | null): TokenResponse {
  const claims = oauth.getValidatedIdTokenClaims(result);
  const type = result.token_type.toLowerCase();
  return {
    accessToken: result.access_token,
    tokenType: type === 'dpop' ? 'DPoP' : type === 'bearer' ? 'Bearer' : result.token_type,
    refreshToken: result.refresh_token ?? null,
    dpopNonce,
    expiresIn: typeof result.expires_in === 'number' ? result.expires_in : null,
    scope: result.scope ?? null,
    idToken: result.id_token ?? null,
    idTokenClaims: claims ? { ...claims } : null,
  };
}

/**
 * One token request (RFC 6749 §3.2) through oauth4webapi, with DPoP (RFC 9449 §5):
 * - a fresh proof for POST to the token endpoint, carrying the context's latest nonce;
 * - every `DPoP-Nonce` response header is stored in the context (§8: the latest value is always used);
 * - on `use_dpop_nonce` with a new nonce, the request is sent once more with a new proof; never more than once;
 * - a context demands a DPoP-bound token: a Bearer answer is refused rather than silently downgraded.
 */
export async function requestToken(request: TokenRequest): Promise<TokenResponse> {
  const endpoint = request.metadata.token_endpoint;
  if (endpoint === undefined) throw new OAuthClientError('metadata_error', 'metadata has no token_endpoint');
  const { url, insecure } = checkRequestUrl(endpoint, 'token_endpoint', request.allowInsecureRequests);
  const as = toAuthorizationServer(request.metadata);
  const client: oauth.Client = { client_id: request.clientId };
  const context = request.dpopContext ?? null;
  const requestOptions = toRequestOptions(request, insecure, (response) => {
    const nonce = response.headers.get('dpop-nonce');
    if (context !== null && nonce !== null && nonce !== '') context.dpopNonce = nonce;
  });

  for (let attempt = 1; ; attempt++) {
    const headers: Record<string, string> = {};
    const nonceSent = context?.dpopNonce ?? null;
    if (context !== null) {
      const { dpopProof } = await createDpopProof({
        issuer: context.issuer,
        publicJwk: context.publicJwk,
        httpMethod: 'POST',
        httpUrl: url,
        nonce: nonceSent,
      });
      headers.dpop = dpopProof;
    }
    try {
      const response = await oauth.genericTokenEndpointRequest(
        as,
        client,
        toClientAuth(request.clientAuthentication),
        request.grantType,
        new URLSearchParams(request.parameters),
        { ...requestOptions, headers },
      );
      const result = await request.process(as, client, response);
      if (context !== null && result.token_type.toLowerCase() !== 'dpop') {
        throw new OAuthClientError(
          'invalid_token_response',
          'a DPoP-bound token was requested, the server issued another type',
        );
      }
      return toTokenResponse(result, context?.dpopNonce ?? null);
    } catch (error) {
      const retry =
        attempt === 1 && context !== null && oauth.isDPoPNonceError(error) && context.dpopNonce !== nonceSent;
      if (!retry) throw toClientError(error);
    }
  }
}
