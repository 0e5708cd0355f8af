import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createDpopContext,
  createPkce,
  exchangeAuthorizationCode,
  generateDpopKeyPair,
  MemoryDpopReplayStore,
  OAuthClientError,
  refreshAccessToken,
  verifyDpopProof,
  type AuthorizationServerMetadata,
  type DpopContext,
} from '../src/index.js';
import { decodePart } from './support/proofs.js';
import { sendJson, startRecordingServer, type RecordingServer } from './support/http-server.js';

// A token endpoint with scripted answers, to show what the client does where oidc-provider would not misbehave.
const servers: RecordingServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function tokenEndpoint(
  answer: (attempt: number) => { status: number; body: unknown; headers?: Record<string, string> },
) {
  let attempt = 0;
  const server = await startRecordingServer((_request, res) => {
    const { status, body, headers } = answer(++attempt);
    sendJson(res, status, body, headers);
  });
  servers.push(server);
  const metadata: AuthorizationServerMetadata = {
    issuer: server.origin,
    token_endpoint: `${server.origin}/token?tenant=a`,
  };
  return { server, metadata };
}

async function context(): Promise<DpopContext> {
  return createDpopContext({ method: 'KEY_ALIAS', identifier: 'k', signer: await generateDpopKeyPair() });
}

async function clientError(promise: Promise<unknown>): Promise<OAuthClientError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(OAuthClientError);
    return error as OAuthClientError;
  }
  throw new Error('expected an OAuthClientError');
}

const dpopToken = { access_token: 'at-1', token_type: 'DPoP', expires_in: 300, refresh_token: 'rt-2' };

describe('token requests with DPoP', () => {
  it('sends a proof for POST to the token endpoint (htu without query) that a server can verify', async () => {
    const { server, metadata } = await tokenEndpoint(() => ({ status: 200, body: dpopToken }));
    const ctx = await context();
    const tokens = await refreshAccessToken({
      metadata,
      clientId: 'c',
      clientAuthentication: null,
      refreshToken: 'rt-1',
      dpopContext: ctx,
      allowInsecureRequests: true,
    });
    expect(tokens).toEqual({
      accessToken: 'at-1',
      tokenType: 'DPoP',
      refreshToken: 'rt-2',
      dpopNonce: null,
      expiresIn: 300,
      scope: null,
      idToken: null,
      idTokenClaims: null,
    });
    const [request] = server.requests;
    expect(request?.path).toBe('/token?tenant=a');
    expect(new URLSearchParams(request?.body)).toEqual(
      new URLSearchParams({ refresh_token: 'rt-1', grant_type: 'refresh_token', client_id: 'c' }),
    );
    const verified = await verifyDpopProof({
      dpopProof: request?.headers.dpop,
      httpMethod: 'POST',
      httpUrl: `${server.origin}${request?.path}`,
      expectedJwkThumbprint: ctx.jwkThumbprint,
      replayStore: new MemoryDpopReplayStore(),
    });
    expect(verified.payload.htu).toBe(`${server.origin}/token`);
    expect(verified.payload).not.toHaveProperty('nonce');
  });

  it('retries once with the nonce of a use_dpop_nonce answer, and never a second time', async () => {
    const { server, metadata } = await tokenEndpoint((attempt) => ({
      status: 400,
      body: { error: 'use_dpop_nonce', error_description: 'Authorization server requires nonce in DPoP proof' },
      headers: { 'DPoP-Nonce': `nonce-${attempt}` },
    }));
    const ctx = await context();
    const error = await clientError(
      exchangeAuthorizationCode({
        metadata,
        clientId: 'c',
        clientAuthentication: null,
        authorizationCode: 'code-1',
        redirectUri: 'https://client.example/cb',
        pkceData: createPkce(null),
        dpopContext: ctx,
        allowInsecureRequests: true,
      }),
    );
    expect(error).toMatchObject({ code: 'token_error', oauthError: 'use_dpop_nonce', status: 400 });
    expect(server.requests).toHaveLength(2);
    expect(decodePart(String(server.requests[0]?.headers.dpop), 1)).not.toHaveProperty('nonce');
    expect(decodePart(String(server.requests[1]?.headers.dpop), 1).nonce).toBe('nonce-1');
    expect(ctx.dpopNonce).toBe('nonce-2');
  });

  it('does not retry a use_dpop_nonce answer that brings no new nonce', async () => {
    const { server, metadata } = await tokenEndpoint(() => ({ status: 400, body: { error: 'use_dpop_nonce' } }));
    const error = await clientError(
      refreshAccessToken({
        metadata,
        clientId: 'c',
        clientAuthentication: null,
        refreshToken: 'rt',
        dpopContext: await context(),
        allowInsecureRequests: true,
      }),
    );
    expect(error.oauthError).toBe('use_dpop_nonce');
    expect(server.requests).toHaveLength(1);
  });

  it('takes the DPoP-Nonce of a successful answer into the context and the result', async () => {
    const { metadata } = await tokenEndpoint(() => ({
      status: 200,
      body: dpopToken,
      headers: { 'DPoP-Nonce': 'fresh' },
    }));
    const ctx = await context();
    const tokens = await refreshAccessToken({
      metadata,
      clientId: 'c',
      clientAuthentication: null,
      refreshToken: 'rt',
      dpopContext: ctx,
      allowInsecureRequests: true,
    });
    expect(ctx.dpopNonce).toBe('fresh');
    expect(tokens.dpopNonce).toBe('fresh');
  });

  it('refuses a Bearer token when a DPoP-bound one was requested', async () => {
    const { metadata } = await tokenEndpoint(() => ({ status: 200, body: { ...dpopToken, token_type: 'Bearer' } }));
    const error = await clientError(
      refreshAccessToken({
        metadata,
        clientId: 'c',
        clientAuthentication: null,
        refreshToken: 'rt',
        dpopContext: await context(),
        allowInsecureRequests: true,
      }),
    );
    expect(error.code).toBe('invalid_token_response');
    expect(error.message).not.toContain('at-1');
  });

  it('keeps tokens of a malformed response out of the error', async () => {
    const secretToken = randomBytes(16).toString('hex');
    const { metadata } = await tokenEndpoint(() => ({
      status: 200,
      body: { access_token: secretToken, token_type: 'DPoP', expires_in: 'soon' },
    }));
    const error = await clientError(
      refreshAccessToken({
        metadata,
        clientId: 'c',
        clientAuthentication: null,
        refreshToken: 'rt',
        dpopContext: await context(),
        allowInsecureRequests: true,
      }),
    );
    expect(error.code).toBe('invalid_token_response');
    expect(JSON.stringify({ message: error.message, cause: String(error.cause) })).not.toContain(secretToken);
  });

  it('refuses an http token endpoint without allowInsecureRequests, before any request', async () => {
    const { server, metadata } = await tokenEndpoint(() => ({ status: 200, body: dpopToken }));
    const error = await clientError(
      refreshAccessToken({ metadata, clientId: 'c', clientAuthentication: null, refreshToken: 'rt' }),
    );
    expect(error.code).toBe('insecure_request');
    expect(server.requests).toHaveLength(0);
  });

  it('reports an unreachable endpoint as request_failed', async () => {
    const { server, metadata } = await tokenEndpoint(() => ({ status: 200, body: dpopToken }));
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    const error = await clientError(
      refreshAccessToken({
        metadata,
        clientId: 'c',
        clientAuthentication: null,
        refreshToken: 'rt',
        allowInsecureRequests: true,
      }),
    );
    expect(error.code).toBe('request_failed');
  });
});
