import { afterEach, describe, expect, it } from 'vitest';
import { fetchAuthorizationServerMetadata, OAuthClientError } from '../src/index.js';
import { sendJson, startRecordingServer, type RecordingServer } from './support/http-server.js';

const servers: RecordingServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function serve(documents: (origin: string) => Record<string, unknown>): Promise<RecordingServer> {
  const server = await startRecordingServer((request, res, origin) => {
    const document = documents(origin)[request.path];
    if (document === undefined) sendJson(res, 404, { error: 'not_found' });
    else sendJson(res, 200, document);
  });
  servers.push(server);
  return server;
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

describe('fetchAuthorizationServerMetadata', () => {
  it('uses RFC 8414 first, inserting the well-known segment before the issuer path', async () => {
    const server = await serve((origin) => ({
      '/.well-known/oauth-authorization-server/tenant-a': {
        issuer: `${origin}/tenant-a`,
        authorization_endpoint: `${origin}/tenant-a/authorize`,
        token_endpoint: `${origin}/tenant-a/token`,
      },
    }));
    const metadata = await fetchAuthorizationServerMetadata(`${server.origin}/tenant-a`, {
      allowInsecureRequests: true,
    });
    expect(metadata.token_endpoint).toBe(`${server.origin}/tenant-a/token`);
    expect(server.requests.map((r) => r.path)).toEqual(['/.well-known/oauth-authorization-server/tenant-a']);
  });

  it('falls back to OpenID Connect discovery when the RFC 8414 document is absent', async () => {
    const server = await serve((origin) => ({
      '/tenant-b/.well-known/openid-configuration': {
        issuer: `${origin}/tenant-b`,
        token_endpoint: `${origin}/tenant-b/token`,
      },
    }));
    const metadata = await fetchAuthorizationServerMetadata(`${server.origin}/tenant-b`, {
      allowInsecureRequests: true,
    });
    expect(metadata.issuer).toBe(`${server.origin}/tenant-b`);
    expect(server.requests.map((r) => r.path)).toEqual([
      '/.well-known/oauth-authorization-server/tenant-b',
      '/tenant-b/.well-known/openid-configuration',
    ]);
  });

  it('rejects a document that names another issuer (RFC 8414 §3.3)', async () => {
    const server = await serve(() => ({
      '/.well-known/oauth-authorization-server': { issuer: 'https://evil.example' },
    }));
    expect(
      (await clientError(fetchAuthorizationServerMetadata(server.origin, { allowInsecureRequests: true }))).code,
    ).toBe('metadata_error');
  });

  it('reports both statuses when neither document exists', async () => {
    const server = await serve(() => ({}));
    const error = await clientError(fetchAuthorizationServerMetadata(server.origin, { allowInsecureRequests: true }));
    expect(error.code).toBe('metadata_error');
    expect(error.message).toContain('HTTP 404, 404');
  });

  it('refuses plain http without allowInsecureRequests, before any request', async () => {
    const server = await serve((origin) => ({ '/.well-known/oauth-authorization-server': { issuer: origin } }));
    expect((await clientError(fetchAuthorizationServerMetadata(server.origin))).code).toBe('insecure_request');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses plain http to a host that is not loopback even with allowInsecureRequests', async () => {
    for (const issuer of ['http://as.example.com', 'http://10.0.0.1', 'http://169.254.169.254']) {
      expect((await clientError(fetchAuthorizationServerMetadata(issuer, { allowInsecureRequests: true }))).code).toBe(
        'insecure_request',
      );
    }
  });

  it('refuses metadata whose endpoints leave https for a non-loopback host', async () => {
    const server = await serve((origin) => ({
      '/.well-known/oauth-authorization-server': { issuer: origin, token_endpoint: 'http://as.example.com/token' },
    }));
    expect(
      (await clientError(fetchAuthorizationServerMetadata(server.origin, { allowInsecureRequests: true }))).code,
    ).toBe('insecure_request');
  });

  it('refuses an issuer with a query or fragment', async () => {
    expect((await clientError(fetchAuthorizationServerMetadata('https://as.example.com/?x=1'))).code).toBe(
      'metadata_error',
    );
  });
});
