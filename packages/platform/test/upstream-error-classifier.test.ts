import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { classifyUpstreamError, UpstreamLoginError, UpstreamOidcClient } from '../src/index.js';

type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
type TokenAnswer = (res: ServerResponse, nonce: string) => Promise<void> | void;

const CLIENT_ID = 'tessera';
const REDIRECT = 'http://127.0.0.1/callback';

/**
 * A real institutional provider on loopback (discovery, key set, token endpoint) whose token endpoint answers as each
 * test says, so that openid-client raises its own typed errors, and the one classifier names each failure.
 */
describe('the upstream error classifier, against real openid-client errors', () => {
  let server: Server;
  let issuer: string;
  let jwk: JWK;
  let signingKey: SigningKey;
  let strangerKey: SigningKey;
  let answer: TokenAnswer;
  let deadPort: number;
  let deadTokenEndpoint = false;

  const idToken = (nonce: string, options: { key?: SigningKey; exp?: number; nonce?: string } = {}) =>
    new SignJWT({ nonce: options.nonce ?? nonce })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(issuer)
      .setSubject('person-1')
      .setAudience(CLIENT_ID)
      .setIssuedAt()
      .setExpirationTime(options.exp ?? Math.floor(Date.now() / 1000) + 300)
      .sign(options.key ?? signingKey);

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    signingKey = pair.privateKey;
    jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    strangerKey = (await generateKeyPair('ES256')).privateKey;
    let lastNonce = '';
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? '/', issuer);
      if (url.pathname === '/.well-known/openid-configuration') {
        return json(res, 200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: deadTokenEndpoint ? `http://127.0.0.1:${deadPort}/token` : `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['ES256'],
        });
      }
      if (url.pathname === '/jwks') return json(res, 200, { keys: [jwk] });
      if (url.pathname === '/token') {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => void answer(res, lastNonce));
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    // The nonce of the login in progress, for ID tokens the token endpoint signs.
    nonceOf = (nonce: string) => (lastNonce = nonce);
  });
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  let nonceOf: (nonce: string) => void = () => undefined;
  let upstream: UpstreamOidcClient;
  beforeEach(() => {
    deadTokenEndpoint = false;
    upstream = new UpstreamOidcClient({
      issuer,
      clientId: CLIENT_ID,
      clientSecret: 'secret',
      scopes: ['openid'],
      timeoutSeconds: 1,
    });
  });

  async function finish(): Promise<UpstreamLoginError> {
    const start = await upstream.startLogin(REDIRECT);
    nonceOf(start.nonce);
    try {
      await upstream.finishLogin({
        redirectUri: REDIRECT,
        callbackQuery: new URLSearchParams({ code: 'c1', state: start.state }),
        state: start.state,
        nonce: start.nonce,
        codeVerifier: start.codeVerifier,
      });
    } catch (error) {
      if (error instanceof UpstreamLoginError) return error;
      throw error;
    }
    throw new Error('the login was expected to fail');
  }

  const tokens = async (res: ServerResponse, id_token: string) =>
    json(res, 200, { access_token: 'at', token_type: 'Bearer', expires_in: 60, id_token });

  it('a good answer passes (the provider is right)', async () => {
    answer = async (res, nonce) => tokens(res, await idToken(nonce));
    const start = await upstream.startLogin(REDIRECT);
    nonceOf(start.nonce);
    const result = await upstream.finishLogin({
      redirectUri: REDIRECT,
      callbackQuery: new URLSearchParams({ code: 'c1', state: start.state }),
      state: start.state,
      nonce: start.nonce,
      codeVerifier: start.codeVerifier,
    });
    expect(result.subject).toBe('person-1');
  });

  it('an OAuth error body (ResponseBodyError): token_exchange_failed with the provider error', async () => {
    answer = (res) => json(res, 400, { error: 'invalid_grant', error_description: 'code used' });
    expect(await finish()).toMatchObject({ reason: 'token_exchange_failed', providerError: 'invalid_grant' });
  });

  it('a 401 challenge (WWWAuthenticateChallengeError): token_exchange_failed with its error', async () => {
    answer = (res) =>
      json(res, 401, { error: 'invalid_client' }, { 'www-authenticate': 'Basic realm="x", error="invalid_client"' });
    expect(await finish()).toMatchObject({ reason: 'token_exchange_failed', providerError: 'invalid_client' });
  });

  it('an ID token signed by another key: id_token_invalid', async () => {
    answer = async (res, nonce) => tokens(res, await idToken(nonce, { key: strangerKey }));
    expect(await finish()).toMatchObject({ reason: 'id_token_invalid' });
  });

  it('an ID token for another nonce (claim comparison): id_token_invalid', async () => {
    answer = async (res, nonce) => tokens(res, await idToken(nonce, { nonce: 'other' }));
    expect(await finish()).toMatchObject({ reason: 'id_token_invalid' });
  });

  it('an expired ID token (timestamp check): id_token_invalid', async () => {
    answer = async (res, nonce) => tokens(res, await idToken(nonce, { exp: Math.floor(Date.now() / 1000) - 3600 }));
    expect(await finish()).toMatchObject({ reason: 'id_token_invalid' });
  });

  it('a token response without an access token (the response body itself): token_exchange_failed', async () => {
    answer = async (res, nonce) => json(res, 200, { token_type: 'Bearer', id_token: await idToken(nonce) });
    expect(await finish()).toMatchObject({ reason: 'token_exchange_failed', providerError: undefined });
  });

  it('a 503 page from a gateway: provider_unreachable', async () => {
    answer = (res) => {
      res.writeHead(503, { 'content-type': 'text/html' });
      res.end('<h1>down</h1>');
    };
    expect(await finish()).toMatchObject({ reason: 'provider_unreachable' });
  });

  it('no answer within the timeout: provider_unreachable', async () => {
    answer = async (res, nonce) => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await tokens(res, await idToken(nonce));
    };
    expect(await finish()).toMatchObject({ reason: 'provider_unreachable' });
  });

  it('a token endpoint that refuses connections: provider_unreachable', async () => {
    // Discovery answers (the client of this test discovers afresh); the token endpoint it names is a closed port.
    deadTokenEndpoint = true;
    answer = () => {
      throw new Error('not reached');
    };
    expect(await finish()).toMatchObject({ reason: 'provider_unreachable' });
  });

  it('an error in the authorization response (AuthorizationResponseError): provider_error with the error', () => {
    const params = new URLSearchParams({ error: 'access_denied' });
    const error = new client.AuthorizationResponseError('authorization response from the server is an error', {
      cause: params,
    });
    expect(classifyUpstreamError(error)).toEqual({ failure: 'provider_error', providerError: 'access_denied' });
  });

  it('a message that merely reads like an ID token problem decides nothing', () => {
    expect(classifyUpstreamError(new Error('JWT signature verification failed'))).toEqual({
      failure: 'token_exchange_failed',
    });
    expect(classifyUpstreamError(new Error('fetch failed: ECONNREFUSED timed out'))).toEqual({
      failure: 'token_exchange_failed',
    });
  });
});
