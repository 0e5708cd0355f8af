import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createDpopContext,
  createPkce,
  exchangeAuthorizationCode,
  fetchAuthorizationServerMetadata,
  generateDpopKeyPair,
  initiateAuthorization,
  OAuthClientError,
  parseAuthorizationResponse,
  refreshAccessToken,
  type AuthorizationServerMetadata,
  type ClientAuthentication,
  type DpopContext,
  type DpopSigningAlg,
} from '../src/index.js';
import {
  BASIC_CLIENT,
  CLIENT_SECRET,
  followAuthorization,
  introspect,
  POST_CLIENT,
  PUBLIC_CLIENT,
  startAuthorizationServer,
  USER_ID,
  type TestAuthorizationServer,
} from './support/authorization-server.js';

const insecure = { allowInsecureRequests: true } as const;

async function clientError(promise: Promise<unknown>): Promise<OAuthClientError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(OAuthClientError);
    return error as OAuthClientError;
  }
  throw new Error('expected an OAuthClientError');
}

async function dpopContext(alg: DpopSigningAlg = 'ES256'): Promise<DpopContext> {
  return createDpopContext({
    method: 'KEY_ALIAS',
    identifier: `client-${alg}`,
    signer: await generateDpopKeyPair(alg),
  });
}

describe('authorization code flow with PKCE and DPoP against oidc-provider', () => {
  let as: TestAuthorizationServer;
  let metadata: AuthorizationServerMetadata;

  beforeAll(async () => {
    as = await startAuthorizationServer();
    metadata = await fetchAuthorizationServerMetadata(as.issuer, insecure);
  });
  afterAll(async () => {
    await as?.close();
  });
  beforeEach(() => {
    as.nonceRequiredFor.clear();
    as.deny = false;
    as.counts.useDpopNonce = 0;
    as.counts.grantSuccess = 0;
  });

  /** initiateAuthorization → the browser's redirects → parseAuthorizationResponse. */
  async function authorize(clientId: string, context: DpopContext | null) {
    const request = await initiateAuthorization({
      metadata,
      clientId,
      redirectUri: as.redirectUri,
      scope: 'openid',
      dpopContext: context,
      ...insecure,
    });
    const redirect = await followAuthorization(request.authorizationUrl, as.redirectUri);
    const response = parseAuthorizationResponse(redirect, {
      metadata,
      state: request.state,
      redirectUri: as.redirectUri,
    });
    return { request, response, redirect };
  }

  it('reads the metadata through RFC 8414 discovery', () => {
    expect(metadata.issuer).toBe(as.issuer);
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
    expect(metadata.dpop_signing_alg_values_supported).toEqual(['ES256', 'ES384']);
    expect(metadata.authorization_response_iss_parameter_supported).toBe(true);
  });

  it('runs the whole flow for a public client: DPoP-bound tokens, nonces picked up, refresh with the latest nonce', async () => {
    const context = await dpopContext();
    const { request, response, redirect } = await authorize(PUBLIC_CLIENT, context);
    const authUrl = new URL(request.authorizationUrl);
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authUrl.searchParams.get('code_challenge')).toBe(request.pkceData.codeChallenge);
    expect(authUrl.searchParams.get('dpop_jkt')).toBe(context.jwkThumbprint);
    expect(authUrl.searchParams.has('code_verifier')).toBe(false);
    expect(response.iss).toBe(as.issuer);
    expect(new URL(redirect).searchParams.get('code')).toBe(response.code);

    const tokens = await exchangeAuthorizationCode({
      metadata,
      clientId: PUBLIC_CLIENT,
      clientAuthentication: null,
      authorizationCode: response.code,
      redirectUri: as.redirectUri,
      pkceData: request.pkceData,
      dpopContext: context,
      expectedNonce: request.nonce,
      ...insecure,
    });
    expect(tokens.tokenType).toBe('DPoP');
    expect(tokens.refreshToken).toEqual(expect.any(String));
    expect(tokens.idTokenClaims).toMatchObject({
      sub: USER_ID,
      nonce: request.nonce,
      aud: PUBLIC_CLIENT,
      iss: as.issuer,
    });
    // oidc-provider hands out a DPoP-Nonce with the token response; the context keeps the latest one.
    expect(context.dpopNonce).toEqual(expect.any(String));
    expect(tokens.dpopNonce).toBe(context.dpopNonce);

    const introspection = await introspect(String(metadata.introspection_endpoint), tokens.accessToken);
    expect(introspection).toMatchObject({
      active: true,
      token_type: 'DPoP',
      cnf: { jkt: context.jwkThumbprint },
      client_id: PUBLIC_CLIENT,
    });

    // The server now demands a nonce for refreshes: the context already holds the latest one, so no retry.
    as.nonceRequiredFor.add('refresh_token');
    const refreshed = await refreshAccessToken({
      metadata,
      clientId: PUBLIC_CLIENT,
      clientAuthentication: null,
      refreshToken: tokens.refreshToken!,
      dpopContext: context,
      ...insecure,
    });
    expect(as.counts.useDpopNonce).toBe(0);
    expect(refreshed.tokenType).toBe('DPoP');
    expect(refreshed.refreshToken).not.toBe(tokens.refreshToken);
    expect(await introspect(String(metadata.introspection_endpoint), refreshed.accessToken)).toMatchObject({
      active: true,
      cnf: { jkt: context.jwkThumbprint },
    });

    // A stale nonce: the server answers use_dpop_nonce with a fresh DPoP-Nonce, the client retries once.
    context.dpopNonce = 'stale-nonce';
    const again = await refreshAccessToken({
      metadata,
      clientId: PUBLIC_CLIENT,
      clientAuthentication: null,
      refreshToken: refreshed.refreshToken!,
      dpopContext: context,
      ...insecure,
    });
    expect(as.counts.useDpopNonce).toBe(1);
    expect(context.dpopNonce).not.toBe('stale-nonce');
    expect(again.dpopNonce).toBe(context.dpopNonce);
    expect(await introspect(String(metadata.introspection_endpoint), again.accessToken)).toMatchObject({
      active: true,
      token_type: 'DPoP',
      cnf: { jkt: context.jwkThumbprint },
    });
  });

  it('retries the code exchange once when the server demands a nonce on first contact', async () => {
    as.nonceRequiredFor.add('authorization_code');
    const context = await dpopContext();
    const { request, response } = await authorize(PUBLIC_CLIENT, context);
    expect(context.dpopNonce).toBeNull();
    const tokens = await exchangeAuthorizationCode({
      metadata,
      clientId: PUBLIC_CLIENT,
      clientAuthentication: null,
      authorizationCode: response.code,
      redirectUri: as.redirectUri,
      pkceData: request.pkceData,
      dpopContext: context,
      expectedNonce: request.nonce,
      ...insecure,
    });
    expect(as.counts).toEqual({ useDpopNonce: 1, grantSuccess: 1 });
    expect(tokens.tokenType).toBe('DPoP');
    expect(context.dpopNonce).toEqual(expect.any(String));
  });

  it('binds tokens to an ES384 key as well', async () => {
    const context = await dpopContext('ES384');
    const { request, response } = await authorize(PUBLIC_CLIENT, context);
    const tokens = await exchangeAuthorizationCode({
      metadata,
      clientId: PUBLIC_CLIENT,
      clientAuthentication: null,
      authorizationCode: response.code,
      redirectUri: as.redirectUri,
      pkceData: request.pkceData,
      dpopContext: context,
      expectedNonce: request.nonce,
      ...insecure,
    });
    expect(await introspect(String(metadata.introspection_endpoint), tokens.accessToken)).toMatchObject({
      cnf: { jkt: context.jwkThumbprint },
    });
  });

  it('refuses to refresh a DPoP-bound refresh token with another key, or without DPoP', async () => {
    const context = await dpopContext();
    const { request, response } = await authorize(PUBLIC_CLIENT, context);
    const tokens = await exchangeAuthorizationCode({
      metadata,
      clientId: PUBLIC_CLIENT,
      clientAuthentication: null,
      authorizationCode: response.code,
      redirectUri: as.redirectUri,
      pkceData: request.pkceData,
      dpopContext: context,
      expectedNonce: request.nonce,
      ...insecure,
    });
    const base = {
      metadata,
      clientId: PUBLIC_CLIENT,
      clientAuthentication: null,
      refreshToken: tokens.refreshToken!,
      ...insecure,
    };
    const otherKey = await clientError(refreshAccessToken({ ...base, dpopContext: await dpopContext() }));
    expect(otherKey).toMatchObject({ code: 'token_error', oauthError: 'invalid_grant', status: 400 });
    const noDpop = await clientError(refreshAccessToken(base));
    expect(noDpop).toMatchObject({ code: 'token_error', oauthError: 'invalid_grant' });
    expect(noDpop.message).not.toContain(tokens.refreshToken!);
  });

  it.each<[string, ClientAuthentication]>([
    [BASIC_CLIENT, { method: 'client_secret_basic', clientSecret: CLIENT_SECRET }],
    [POST_CLIENT, { method: 'client_secret_post', clientSecret: CLIENT_SECRET }],
  ])('authenticates %s and gets Bearer tokens without DPoP', async (clientId, clientAuthentication) => {
    const { request, response } = await authorize(clientId, null);
    const tokens = await exchangeAuthorizationCode({
      metadata,
      clientId,
      clientAuthentication,
      authorizationCode: response.code,
      redirectUri: as.redirectUri,
      pkceData: request.pkceData,
      expectedNonce: request.nonce,
      ...insecure,
    });
    expect(tokens.tokenType).toBe('Bearer');
    expect(tokens.dpopNonce).toBeNull();
    const introspection = await introspect(String(metadata.introspection_endpoint), tokens.accessToken);
    expect(introspection).toMatchObject({ active: true, token_type: 'Bearer', client_id: clientId });
    expect(introspection).not.toHaveProperty('cnf');
    const refreshed = await refreshAccessToken({
      metadata,
      clientId,
      clientAuthentication,
      refreshToken: tokens.refreshToken!,
      ...insecure,
    });
    expect(refreshed.tokenType).toBe('Bearer');
  });

  it('surfaces a wrong client secret as token_error invalid_client, without the secret', async () => {
    const { request, response } = await authorize(BASIC_CLIENT, null);
    const error = await clientError(
      exchangeAuthorizationCode({
        metadata,
        clientId: BASIC_CLIENT,
        clientAuthentication: { method: 'client_secret_basic', clientSecret: 'wrong-secret' },
        authorizationCode: response.code,
        redirectUri: as.redirectUri,
        pkceData: request.pkceData,
        ...insecure,
      }),
    );
    expect(error).toMatchObject({ code: 'token_error', oauthError: 'invalid_client', status: 401 });
    expect(error.message).not.toContain('wrong-secret');
  });

  it('is refused by the server when the code_verifier is not the one of the challenge', async () => {
    const { response } = await authorize(PUBLIC_CLIENT, null);
    const error = await clientError(
      exchangeAuthorizationCode({
        metadata,
        clientId: PUBLIC_CLIENT,
        clientAuthentication: null,
        authorizationCode: response.code,
        redirectUri: as.redirectUri,
        pkceData: createPkce(null),
        ...insecure,
      }),
    );
    expect(error).toMatchObject({ code: 'token_error', oauthError: 'invalid_grant' });
    expect(error.message).not.toContain(response.code);
  });

  it('surfaces a denied authorization as authorization_error access_denied, after checking iss and state', async () => {
    as.deny = true;
    const request = await initiateAuthorization({
      metadata,
      clientId: PUBLIC_CLIENT,
      redirectUri: as.redirectUri,
      scope: 'openid',
      ...insecure,
    });
    const redirect = await followAuthorization(request.authorizationUrl, as.redirectUri);
    expect(new URL(redirect).searchParams.get('iss')).toBe(as.issuer);
    const parse = () => parseAuthorizationResponse(redirect, { metadata, state: request.state });
    expect(parse).toThrow(OAuthClientError);
    try {
      parse();
    } catch (error) {
      expect(error).toMatchObject({
        code: 'authorization_error',
        oauthError: 'access_denied',
        oauthErrorDescription: 'the user said no',
      });
    }
    // The same redirect checked against another authorization server's metadata fails on iss first (RFC 9207).
    expect(() =>
      parseAuthorizationResponse(redirect, {
        metadata: { ...metadata, issuer: 'https://other.example' },
        state: request.state,
      }),
    ).toThrow(/iss is not the expected issuer/);
  });
});
