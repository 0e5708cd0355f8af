import {
  createDpopContext,
  createDpopRequestHeaders,
  exchangeAuthorizationCode,
  fetchAuthorizationServerMetadata,
  generateDpopKeyPair,
  initiateAuthorization,
  parseAuthorizationResponse,
  refreshAccessToken,
  rememberDpopNonce,
  type DpopContext,
  type TokenResponse,
} from '@tessera/pkce-dpop';

export interface DpopClientOptions {
  /** The token service's issuer, e.g. https://login.example.edu */
  issuer: string;
  /** A public client (no secret): its tokens, refresh token included, are bound to its DPoP key. */
  clientId: string;
  redirectUri: string;
  /** Sends the user's browser to the authorization URL; answers the URL the browser came back to. */
  authorize(authorizationUrl: string): Promise<string>;
  /** Plain http, to a loopback host only: local development. */
  allowInsecureRequests?: boolean;
}

export interface DpopClientResult {
  jwkThumbprint: string;
  tokens: TokenResponse;
  userinfo: Record<string, unknown>;
  refreshed: TokenResponse;
}

/** Authorization code + PKCE + DPoP (RFC 7636, RFC 9449) against the token service, then userinfo and refresh. */
export async function runDpopClient(options: DpopClientOptions): Promise<DpopClientResult> {
  const { issuer, clientId, redirectUri } = options;
  const http = { allowInsecureRequests: options.allowInsecureRequests ?? false };

  // 1. Discovery (RFC 8414). With DPoP on, the metadata lists dpop_signing_alg_values_supported.
  const metadata = await fetchAuthorizationServerMetadata(issuer, http);

  // 2. The DPoP key: ES256, in memory and not extractable. Keep it as long as the tokens.
  const signer = await generateDpopKeyPair('ES256');
  const dpopContext = await createDpopContext({ method: 'KEY_ALIAS', identifier: 'example-client-dpop', signer });

  // 3. The authorization request: PKCE S256, and dpop_jkt, which binds the code to the key (RFC 9449 §10).
  const request = await initiateAuthorization({
    metadata,
    clientId,
    redirectUri,
    scope: 'openid profile email offline_access',
    dpopContext,
    ...http,
  });
  const redirectUrl = await options.authorize(request.authorizationUrl);
  const { code } = parseAuthorizationResponse(redirectUrl, { metadata, state: request.state, redirectUri });

  // 4. The code exchange, with a proof. A use_dpop_nonce answer is retried once with the server's nonce (§8).
  const tokens = await exchangeAuthorizationCode({
    metadata,
    clientId,
    clientAuthentication: null,
    authorizationCode: code,
    redirectUri,
    pkceData: request.pkceData,
    dpopContext,
    expectedNonce: request.nonce,
    ...http,
  });

  // 5. A protected resource: `Authorization: DPoP <token>` and a proof that carries the token's hash (§7.1).
  const userinfo = await getUserinfo(metadata.userinfo_endpoint!, tokens.accessToken, dpopContext);

  // 6. The refresh, with a proof by the same key (§5). The refresh token is rotated: keep the new one.
  const refreshed = await refreshAccessToken({
    metadata,
    clientId,
    clientAuthentication: null,
    refreshToken: tokens.refreshToken!,
    dpopContext,
    ...http,
  });
  return { jwkThumbprint: dpopContext.jwkThumbprint, tokens, userinfo, refreshed };
}

/** GET userinfo with DPoP; a 401 use_dpop_nonce is retried once with the nonce it brought (RFC 9449 §9). */
async function getUserinfo(
  url: string,
  accessToken: string,
  dpopContext: DpopContext,
): Promise<Record<string, unknown>> {
  for (let attempt = 1; ; attempt++) {
    const headers = await createDpopRequestHeaders(dpopContext, { httpMethod: 'GET', httpUrl: url, accessToken });
    const response = await fetch(url, { headers });
    rememberDpopNonce(dpopContext, response.headers);
    const challenge = response.headers.get('www-authenticate') ?? '';
    if (response.status === 401 && attempt === 1 && challenge.includes('error="use_dpop_nonce"')) continue;
    if (!response.ok) throw new Error(`userinfo answered ${response.status}`);
    return (await response.json()) as Record<string, unknown>;
  }
}
