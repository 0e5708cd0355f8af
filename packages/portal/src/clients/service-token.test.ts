import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isAppError, ManualClock } from '@tessera/platform';
import { resolvePortalOptions } from '../options.js';
import { ServiceTokenSource } from './service-token.js';

const jwt = (claims: Record<string, unknown>) => `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;

/**
 * The portal's client_credentials token (RFC 6749 §4.4) against a small token endpoint on loopback that records what
 * it was sent: the grant, the Basic credentials, the scope; answers with a token whose tenant the test chooses.
 */
describe('service token', () => {
  let server: Server;
  let url: string;
  let answer: { status: number; body: Record<string, unknown> };
  const received: Array<{ authorization: string | undefined; body: string }> = [];
  const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ authorization: req.headers.authorization, body });
        // Answered a little later, so that concurrent callers overlap.
        setTimeout(() => {
          res.writeHead(answer.status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(answer.body));
        }, 20);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    received.length = 0;
    answer = {
      status: 200,
      body: { access_token: jwt({ tenant_id: 'demo', n: 1 }), token_type: 'Bearer', expires_in: 300 },
    };
  });

  const source = () =>
    new ServiceTokenSource(
      resolvePortalOptions({
        tokenServiceUrl: url,
        tokenServicePublicUrl: url,
        bridgeUrl: 'http://127.0.0.1:1',
        portalPublicUrl: 'http://127.0.0.1:3000',
        serviceCredentials: { clientId: 'tessera portal', clientSecret: 'p@ss:word' },
        keys: {} as never,
        clock,
      }),
    );

  it('asks once with client_secret_basic and the portal scopes, then reuses the token until 30 s before expiry', async () => {
    const s = source();
    const first = await s.token('demo');
    expect(received).toHaveLength(1);
    expect(received[0]!.authorization).toBe(
      `Basic ${Buffer.from('tessera%20portal:p%40ss%3Aword').toString('base64')}`,
    );
    expect(Object.fromEntries(new URLSearchParams(received[0]!.body))).toEqual({
      grant_type: 'client_credentials',
      scope: 'bridge:sessions token-service:authorization-check',
    });
    clock.advance(269);
    expect(await s.token('demo')).toBe(first);
    expect(received).toHaveLength(1);
    answer.body.access_token = jwt({ tenant_id: 'demo', n: 2 });
    clock.advance(1);
    expect(await s.token('demo')).not.toBe(first);
    expect(received).toHaveLength(2);
  });

  it('concurrent callers share one token request', async () => {
    const s = source();
    const tokens = await Promise.all(Array.from({ length: 5 }, () => s.token('demo')));
    expect(new Set(tokens).size).toBe(1);
    expect(received).toHaveLength(1);
  });

  it('a refused token is dropped and fetched again', async () => {
    const s = source();
    const first = await s.token('demo');
    answer.body.access_token = jwt({ tenant_id: 'demo', n: 3 });
    s.invalidate(first);
    expect(await s.token('demo')).not.toBe(first);
    expect(received).toHaveLength(2);
  });

  it('a refusal of the client, or a token of another tenant, is service_unavailable (never the secret in the message)', async () => {
    answer = { status: 401, body: { error: 'invalid_client', error_description: 'bad' } };
    const refused = await source()
      .token('demo')
      .catch((e: unknown) => e);
    expect(isAppError(refused) && refused.code).toBe('service_unavailable');
    expect((refused as Error).message).toContain('invalid_client');
    expect((refused as Error).message).not.toContain('p@ss');
    answer = { status: 200, body: { access_token: jwt({ tenant_id: 'beta' }), expires_in: 300 } };
    const foreign = await source()
      .token('demo')
      .catch((e: unknown) => e);
    expect(isAppError(foreign) && foreign.code).toBe('service_unavailable');
  });
});
