import type { PkceData } from '../pkce/pkce-types.js';

/**
 * Authorization server metadata (RFC 8414 §2, OpenID Connect Discovery 1.0 §3): the wire names, as the server
 * publishes them. Members this package reads are typed; the rest pass through.
 */
export interface AuthorizationServerMetadata {
  issuer: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
  jwks_uri?: string;
  introspection_endpoint?: string;
  revocation_endpoint?: string;
  userinfo_endpoint?: string;
  pushed_authorization_request_endpoint?: string;
  response_types_supported?: string[];
  grant_types_supported?: string[];
  scopes_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
  code_challenge_methods_supported?: string[];
  dpop_signing_alg_values_supported?: string[];
  id_token_signing_alg_values_supported?: string[];
  authorization_response_iss_parameter_supported?: boolean;
  [parameter: string]: unknown;
}

/**
 * How the client authenticates at the token endpoint (RFC 6749 §2.3.1): null for a public client (it sends only
 * its client_id), else a shared secret sent in the Authorization header (client_secret_basic) or in the body
 * (client_secret_post).
 */
export type ClientAuthentication =
  | null
  | { method: 'client_secret_basic'; clientSecret: string }
  | { method: 'client_secret_post'; clientSecret: string };

/** What `fetch` must offer (the global fetch, or one that a test or an outbound proxy supplies). */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** Transport options shared by every call that makes a request. */
export interface HttpRequestOptions {
  /**
   * Allows plain http, and only to a loopback host (127.0.0.0/8, [::1], localhost): for tests and local
   * development. Off by default; https is required everywhere else.
   */
  allowInsecureRequests?: boolean;
  fetch?: FetchLike;
  /** Abort signal; by default each request times out after 30 seconds. */
  signal?: AbortSignal;
}

/** What initiateAuthorization returns: the URL to send the browser to, and what to keep for the callback. */
export interface AuthorizationRequest {
  authorizationUrl: string;
  pkceData: PkceData;
  state: string;
  /** Set when the scope includes `openid` (OpenID Connect Core §3.1.2.1), null otherwise. */
  nonce: string | null;
}

/** The parameters of a successful authorization response (RFC 6749 §4.1.2, RFC 9207 §2). */
export interface AuthorizationResponse {
  code: string;
  state: string;
  iss: string | null;
}

/**
 * A token response (spec 002 §2.2 names accessToken, tokenType, refreshToken, dpopNonce). `tokenType` is "DPoP"
 * for a DPoP-bound token (RFC 9449 §5) and "Bearer" otherwise; `dpopNonce` is the latest `DPoP-Nonce` the server
 * sent, or null.
 */
export interface TokenResponse {
  accessToken: string;
  tokenType: string;
  refreshToken: string | null;
  dpopNonce: string | null;
  expiresIn: number | null;
  scope: string | null;
  idToken: string | null;
  /** The ID token's claims, checked for iss, aud, exp, iat and nonce (OpenID Connect Core §3.1.3.7). */
  idTokenClaims: Record<string, unknown> | null;
}
