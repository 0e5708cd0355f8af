import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as client from 'openid-client';
import { defaultDemoUsers, startDevIdentityProvider, type DemoUser, type DevIdentityProvider } from '../src/index.js';
import { Browser } from './support/browser.js';
import { REDIRECT_URI, loginFormAction } from './support/relying-party.js';

/** A port the system just handed out and released. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const SIGNED_OUT = 'http://127.0.0.1:9/signed-out';

const dana: DemoUser = {
  username: 'dana',
  password: 'correct horse battery staple',
  sub: 'd-0042',
  claims: {
    campus_id: 'C-42',
    eduperson_principal_name: 'dana@campus.example',
    email: 'dana@campus.example',
    email_verified: true,
    given_name: 'Dana',
    family_name: 'Doe',
    name: 'Dana Doe',
  },
};

/** A provider configured like another institution: its own service claim, people, and client settings. */
describe('dev identity provider: options', () => {
  let idp: DevIdentityProvider;

  beforeAll(async () => {
    idp = await startDevIdentityProvider({
      port: 0,
      serviceClaim: 'campus_id',
      users: [dana],
      cookieKeys: ['a-fixed-cookie-key-for-this-test'],
      ttlSeconds: 120,
      clients: [
        {
          clientId: 'post-rp',
          clientSecret: 'post-rp-secret',
          redirectUris: [REDIRECT_URI],
          postLogoutRedirectUris: [SIGNED_OUT],
          tokenEndpointAuthMethod: 'client_secret_post',
        },
        { clientId: 'public-rp', redirectUris: [REDIRECT_URI], tokenEndpointAuthMethod: 'none' },
      ],
    });
  });
  afterAll(async () => idp?.close());

  async function login(config: client.Configuration, browser = new Browser()) {
    const verifier = client.randomPKCECodeVerifier();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid campus_id profile',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      nonce,
    });
    const page = await browser.follow(url, REDIRECT_URI);
    const action = loginFormAction(await page.response!.text(), page.url);
    const back = await browser.submit(action, { username: dana.username, password: dana.password }, REDIRECT_URI);
    return client.authorizationCodeGrant(config, back.url, {
      pkceCodeVerifier: verifier,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
  }

  it('answers GET /health like every port of the development setup', async () => {
    const res = await fetch(`${idp.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('names the service claim and its scope after the option, for a client_secret_post client', async () => {
    const config = await client.discovery(
      new URL(idp.issuer),
      'post-rp',
      undefined,
      client.ClientSecretPost('post-rp-secret'),
      {
        execute: [client.allowInsecureRequests],
      },
    );
    expect(config.serverMetadata().scopes_supported).toContain('campus_id');
    expect(config.serverMetadata().scopes_supported).not.toContain('service_id');
    const tokens = await login(config);
    expect(tokens.expires_in).toBe(120);
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ sub: 'd-0042', campus_id: 'C-42', eduperson_principal_name: 'dana@campus.example' });
    expect(claims.exp! - claims.iat).toBe(120);
  });

  it('serves a public client with PKCE only', async () => {
    const config = await client.discovery(new URL(idp.issuer), 'public-rp', undefined, client.None(), {
      execute: [client.allowInsecureRequests],
    });
    expect((await login(config)).claims()?.sub).toBe('d-0042');
  });

  it('signs out through the end-session endpoint and returns to the registered URI', async () => {
    const config = await client.discovery(
      new URL(idp.issuer),
      'post-rp',
      undefined,
      client.ClientSecretPost('post-rp-secret'),
      {
        execute: [client.allowInsecureRequests],
      },
    );
    const browser = new Browser();
    const tokens = await login(config, browser);
    const logout = client.buildEndSessionUrl(config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: SIGNED_OUT,
      state: 'bye',
    });
    const page = await browser.follow(logout, SIGNED_OUT);
    const html = await page.response!.text();
    expect(html).toContain('Yes, sign me out');
    const action = /<form id="op.logoutForm" method="post" action="([^"]+)">/.exec(html)?.[1];
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1];
    const back = await browser.submit(new URL(action!, page.url), { xsrf: xsrf!, logout: 'yes' }, SIGNED_OUT);
    expect(back.url.searchParams.get('state')).toBe('bye');
  });

  it('refuses a client without a secret for a secret method, and leaves no port bound', async () => {
    const port = await freePort();
    const users = defaultDemoUsers();
    await expect(
      startDevIdentityProvider({ port, users, clients: [{ clientId: 'x', redirectUris: [REDIRECT_URI] }] }),
    ).rejects.toThrow(/needs a clientSecret/);
    const again = await startDevIdentityProvider({ port, users, clients: [] });
    expect(again.port).toBe(port);
    expect(again.users.map((u) => u.username)).toEqual(['alice', 'bob', 'carol']);
    expect(again.users[2]!.claims.email_verified).toBe(false);
    await again.close();
  });
});
