import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Value from 'typebox/value';
import { createRoleApp, platformMigrations, type RoleApp } from '@tessera/platform';
import { createTestPlatform, type TestPlatform } from '@tessera/platform/testing';
import { identityMigrations, PostgresIdentityStore } from '@tessera/identity';
import {
  TokenServiceConfigSchema,
  createTokenService,
  prepareTokenService,
  registerTokenServiceRoutes,
  tokenServiceMigrations,
  type TokenServiceConfig,
} from '@tessera/token-service';
import { startDemoRelyingParty, type DemoRelyingParty } from '../src/index.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The demo relying party against the real token service (discovery, /authorize): where each button sends the browser,
 * and how errors are shown. The whole wallet and institution flows run in packages/portal/test (HTTP and Chromium).
 */
describe('demo relying party', () => {
  let t: TestPlatform;
  let app: RoleApp;
  let rp: DemoRelyingParty;
  let issuer: string;
  const portalUrl = 'http://127.0.0.1:3999';

  beforeAll(async () => {
    t = await createTestPlatform('pglite', {
      migrations: [...platformMigrations, ...identityMigrations, ...tokenServiceMigrations],
      overrides: { rateLimit: { enabled: false } },
    });
    // The relying party's redirect URI is registered at the token service, so its port is chosen first.
    const port = await freePort();
    const redirectUri = `http://127.0.0.1:${port}/callback`;
    const config = Value.Default(TokenServiceConfigSchema, {
      clients: {
        'demo-rp': {
          'client-secret': '{plain}demo-rp-secret',
          'redirect-uris': [redirectUri],
          scopes: ['openid', 'profile', 'email', 'service_id', 'offline_access'],
        },
      },
    }) as TokenServiceConfig;
    const ctx = createTokenService(t.platform, config, {
      identities: new PostgresIdentityStore({
        keys: t.platform.keys,
        clock: t.platform.clock,
        serviceClaim: 'service_id',
      }),
      wallet: null,
      upstream: null,
    });
    app = await createRoleApp(t.platform, { role: 'token-internal', title: 'token service', family: 'oauth' });
    await registerTokenServiceRoutes(app, ctx);
    issuer = await app.listen({ host: '127.0.0.1', port: 0 });
    config.issuer = issuer;
    await prepareTokenService(ctx);
    rp = await startDemoRelyingParty({ port, tokenServiceUrl: issuer, portalUrl });
    expect(rp.redirectUri).toBe(redirectUri);
  });
  afterAll(async () => {
    await rp?.close();
    await app?.close();
    await t?.close();
  });

  const post = (path: string, cookie?: string) =>
    fetch(`${rp.url}${path}`, { method: 'POST', redirect: 'manual', ...(cookie ? { headers: { cookie } } : {}) });

  it('answers GET /health like every port of the development setup', async () => {
    const res = await fetch(`${rp.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('shows two buttons, in a page that may not be framed', async () => {
    const res = await fetch(rp.url);
    const html = await res.text();
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<button type="submit" id="wallet-login">Sign in with your wallet</button>');
    expect(html).toContain('<button type="submit" id="institution-login">Sign in with your institution</button>');
  });

  it('the wallet button sends the browser to the portal with a complete authorization request (PKCE S256, state, nonce)', async () => {
    const res = await post('/login/wallet');
    expect(res.status).toBe(303);
    const target = new URL(res.headers.get('location')!);
    expect(`${target.origin}${target.pathname}`).toBe(`${portalUrl}/signin`);
    const q = Object.fromEntries(target.searchParams);
    expect(q).toMatchObject({
      response_type: 'code',
      client_id: 'demo-rp',
      redirect_uri: rp.redirectUri,
      scope: 'openid profile email service_id offline_access',
      code_challenge_method: 'S256',
    });
    expect(q.code_challenge).toMatch(/^[\w-]{43}$/);
    expect(q.state!.length).toBeGreaterThanOrEqual(22);
    expect(q.nonce!.length).toBeGreaterThanOrEqual(22);
    expect(res.headers.get('set-cookie')).toMatch(
      /^demo-rp-login=[\w-]+\.[\w-]+; Path=\/; Max-Age=1800; HttpOnly; SameSite=Lax$/,
    );
  });

  it('the institution button sends the browser to the token service /authorize, without a wallet hint', async () => {
    const res = await post('/login/institution');
    const target = new URL(res.headers.get('location')!);
    expect(`${target.origin}${target.pathname}`).toBe(`${issuer}/authorize`);
    expect(target.searchParams.get('login_hint')).toBeNull();
    expect(target.searchParams.get('code_challenge_method')).toBe('S256');
  });

  it('an error answer of the token service is shown plainly (here: no institutional login is configured)', async () => {
    const start = await post('/login/institution');
    const cookie = start.headers.get('set-cookie')!.split(';')[0]!;
    const back = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    const callback = back.headers.get('location')!;
    expect(callback.startsWith(rp.redirectUri)).toBe(true);
    const page = await fetch(callback, { headers: { cookie } });
    const html = await page.text();
    expect(page.status).toBe(400);
    expect(html).toContain('<p id="error-code">Error: <code>access_denied</code></p>');
    expect(html).toContain('No institutional login is configured.');
    expect(page.headers.get('set-cookie')).toContain('Max-Age=0');
  });

  it('a callback with another state, or without a sign-in in progress, is refused with a plain message', async () => {
    const start = await post('/login/wallet');
    const cookie = start.headers.get('set-cookie')!.split(';')[0]!;
    const forged = await fetch(`${rp.redirectUri}?code=abc&state=not-mine&iss=${encodeURIComponent(issuer)}`, {
      headers: { cookie },
    });
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain('id="error-code"');
    const none = await fetch(`${rp.redirectUri}?code=abc&state=x`);
    expect(none.status).toBe(400);
    expect(await none.text()).toContain('no_login_in_progress');
  });
});
