import { describe, expect, it } from 'vitest';
import {
  createDpopContext,
  generateDpopKeyPair,
  initiateAuthorization,
  OAuthClientError,
  parseAuthorizationResponse,
  type AuthorizationServerMetadata,
} from '../src/index.js';

const metadata: AuthorizationServerMetadata = {
  issuer: 'https://as.example.com',
  authorization_endpoint: 'https://as.example.com/authorize?tenant=a',
  token_endpoint: 'https://as.example.com/token',
  code_challenge_methods_supported: ['S256'],
  authorization_response_iss_parameter_supported: true,
};

function failure(fn: () => unknown): OAuthClientError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(OAuthClientError);
    return error as OAuthClientError;
  }
  throw new Error('expected an OAuthClientError');
}

describe('initiateAuthorization', () => {
  it('builds the code-flow request with S256 PKCE, state, nonce and dpop_jkt', async () => {
    const context = await createDpopContext({
      method: 'KEY_ALIAS',
      identifier: 'k',
      signer: await generateDpopKeyPair(),
    });
    const request = await initiateAuthorization({
      metadata,
      clientId: 'client-1',
      redirectUri: 'https://client.example/cb',
      scope: 'openid profile',
      dpopContext: context,
      additionalParameters: { prompt: 'login' },
    });
    const url = new URL(request.authorizationUrl);
    expect(`${url.origin}${url.pathname}`).toBe('https://as.example.com/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      tenant: 'a',
      prompt: 'login',
      response_type: 'code',
      client_id: 'client-1',
      redirect_uri: 'https://client.example/cb',
      scope: 'openid profile',
      state: request.state,
      nonce: request.nonce,
      code_challenge: request.pkceData.codeChallenge,
      code_challenge_method: 'S256',
      dpop_jkt: context.jwkThumbprint,
    });
    expect(request.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(request.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('sends no nonce without openid, and fresh state and verifier every time', async () => {
    const a = await initiateAuthorization({
      metadata,
      clientId: 'c',
      redirectUri: 'https://c.example/cb',
      scope: 'api',
    });
    const b = await initiateAuthorization({
      metadata,
      clientId: 'c',
      redirectUri: 'https://c.example/cb',
      scope: 'api',
    });
    expect(a.nonce).toBeNull();
    expect(new URL(a.authorizationUrl).searchParams.has('nonce')).toBe(false);
    expect(a.state).not.toBe(b.state);
    expect(a.pkceData.codeVerifier).not.toBe(b.pkceData.codeVerifier);
  });

  it('uses plain only when the caller allows it and the server supports nothing else', async () => {
    const plainOnly = { ...metadata, code_challenge_methods_supported: ['plain'] };
    await expect(
      initiateAuthorization({ metadata: plainOnly, clientId: 'c', redirectUri: 'https://c.example/cb', scope: 'api' }),
    ).rejects.toMatchObject({ code: 'metadata_error' });
    const request = await initiateAuthorization({
      metadata: plainOnly,
      clientId: 'c',
      redirectUri: 'https://c.example/cb',
      scope: 'api',
      allowedPkceMethods: ['S256', 'plain'],
    });
    expect(request.pkceData.codeChallengeMethod).toBe('plain');
  });

  it('refuses additional parameters that would replace a security parameter', async () => {
    for (const name of ['code_challenge', 'code_challenge_method', 'state', 'redirect_uri', 'dpop_jkt']) {
      await expect(
        initiateAuthorization({
          metadata,
          clientId: 'c',
          redirectUri: 'https://c.example/cb',
          scope: 'api',
          additionalParameters: { [name]: 'x' },
        }),
      ).rejects.toThrow(TypeError);
    }
  });

  it('refuses an http authorization endpoint', async () => {
    await expect(
      initiateAuthorization({
        metadata: { ...metadata, authorization_endpoint: 'http://as.example.com/authorize' },
        clientId: 'c',
        redirectUri: 'https://c.example/cb',
        scope: 'api',
      }),
    ).rejects.toMatchObject({ code: 'insecure_request' });
  });
});

describe('parseAuthorizationResponse', () => {
  const redirect = (params: Record<string, string>) => `https://client.example/cb?${new URLSearchParams(params)}`;
  const expected = { metadata, state: 'state-1', redirectUri: 'https://client.example/cb' };

  it('returns code, state and iss', () => {
    expect(
      parseAuthorizationResponse(redirect({ code: 'c-1', state: 'state-1', iss: metadata.issuer }), expected),
    ).toEqual({
      code: 'c-1',
      state: 'state-1',
      iss: metadata.issuer,
    });
  });

  it('rejects a wrong or missing state', () => {
    expect(
      failure(() => parseAuthorizationResponse(redirect({ code: 'c', state: 'other', iss: metadata.issuer }), expected))
        .code,
    ).toBe('invalid_authorization_response');
    expect(
      failure(() => parseAuthorizationResponse(redirect({ code: 'c', iss: metadata.issuer }), expected)).message,
    ).toContain('lacks state');
  });

  it('rejects another issuer, and a missing iss when the server advertises it (RFC 9207)', () => {
    expect(
      failure(() =>
        parseAuthorizationResponse(redirect({ code: 'c', state: 'state-1', iss: 'https://evil.example' }), expected),
      ).code,
    ).toBe('invalid_authorization_response');
    expect(
      failure(() => parseAuthorizationResponse(redirect({ code: 'c', state: 'state-1' }), expected)).message,
    ).toContain('RFC 9207');
    const noIssSupport = {
      ...expected,
      metadata: { ...metadata, authorization_response_iss_parameter_supported: false },
    };
    expect(parseAuthorizationResponse(redirect({ code: 'c', state: 'state-1' }), noIssSupport).iss).toBeNull();
  });

  it('checks iss and state before surfacing an error response', () => {
    const denied = { error: 'access_denied', error_description: 'no', state: 'state-1', iss: metadata.issuer };
    expect(failure(() => parseAuthorizationResponse(redirect(denied), expected))).toMatchObject({
      code: 'authorization_error',
      oauthError: 'access_denied',
      oauthErrorDescription: 'no',
    });
    expect(failure(() => parseAuthorizationResponse(redirect({ ...denied, state: 'forged' }), expected)).code).toBe(
      'invalid_authorization_response',
    );
    expect(
      failure(() => parseAuthorizationResponse(redirect({ ...denied, iss: 'https://evil.example' }), expected)).code,
    ).toBe('invalid_authorization_response');
  });

  it('rejects repeated parameters, a missing code, and another redirect URI', () => {
    expect(
      failure(() =>
        parseAuthorizationResponse(
          `https://client.example/cb?code=a&code=b&state=state-1&iss=${encodeURIComponent(metadata.issuer)}`,
          expected,
        ),
      ).message,
    ).toContain('repeated');
    expect(
      failure(() => parseAuthorizationResponse(redirect({ state: 'state-1', iss: metadata.issuer }), expected)).message,
    ).toContain('lacks a code');
    expect(
      failure(() =>
        parseAuthorizationResponse(
          `https://attacker.example/cb?${new URLSearchParams({ code: 'c', state: 'state-1', iss: metadata.issuer })}`,
          expected,
        ),
      ).code,
    ).toBe('invalid_authorization_response');
  });

  it('keeps control characters of a hostile error value out of the message', () => {
    const hostile = 'access_denied\nlevel=info msg=forged';
    const error = failure(() =>
      parseAuthorizationResponse(redirect({ error: hostile, state: 'state-1', iss: metadata.issuer }), expected),
    );
    expect(error.message).toBe('the authorization server answered access_deniedlevel=info msg=forged');
    expect(error.oauthError).toBe(hostile);
  });

  it('never puts the code in a message', () => {
    const error = failure(() =>
      parseAuthorizationResponse(redirect({ code: 'secret-code', state: 'bad', iss: metadata.issuer }), expected),
    );
    expect(error.message).not.toContain('secret-code');
  });
});
