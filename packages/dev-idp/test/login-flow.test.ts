import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as client from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { DEV_IDP_ACR, startDevIdentityProvider, type DevIdentityProvider } from '../src/index.js';
import { Browser } from './support/browser.js';
import { REDIRECT_URI, RP, beginLogin, discover, exchange, loginFormAction, signIn } from './support/relying-party.js';

/**
 * The development provider as a relying party meets it: openid-client runs discovery, the authorization code
 * flow with PKCE, the code exchange with ID token validation, and userinfo; the login form is driven over HTTP.
 */
describe('dev identity provider: authorization code flow', () => {
  let idp: DevIdentityProvider;
  let config: client.Configuration;

  beforeAll(async () => {
    idp = await startDevIdentityProvider({ port: 0, clients: [RP] });
    config = await discover(idp);
  });
  afterAll(async () => idp?.close());

  it('publishes discovery metadata for code flow with PKCE, RS256 and the service claim', () => {
    expect(idp.issuer).toBe(`http://127.0.0.1:${idp.port}`);
    const meta = config.serverMetadata();
    expect(meta).toMatchObject({
      issuer: idp.issuer,
      authorization_endpoint: `${idp.issuer}/authorize`,
      token_endpoint: `${idp.issuer}/token`,
      userinfo_endpoint: `${idp.issuer}/userinfo`,
      jwks_uri: `${idp.issuer}/jwks`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      id_token_signing_alg_values_supported: ['RS256'],
      acr_values_supported: [DEV_IDP_ACR],
    });
    expect(meta.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'email', 'service_id']));
    expect(meta.claims_supported).toEqual(
      expect.arrayContaining(['sub', 'service_id', 'eduperson_principal_name', 'email', 'acr']),
    );
  });

  it('signs a demo user in and releases the service claim, eppn, email and acr in the ID token', async () => {
    const user = idp.users[0]!;
    const login = await signIn(config, user.username, user.password);
    expect(login.callback.searchParams.get('state')).toBe(login.state);
    expect(login.callback.searchParams.get('iss')).toBe(idp.issuer);

    const tokens = await exchange(config, login);
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({
      iss: idp.issuer,
      aud: RP.clientId,
      sub: user.sub,
      nonce: login.nonce,
      acr: DEV_IDP_ACR,
      service_id: user.claims.service_id,
      eduperson_principal_name: user.claims.eduperson_principal_name,
      email: user.claims.email,
      email_verified: true,
      name: user.claims.name,
    });
    expect(tokens.refresh_token).toBeUndefined();

    // openid-client trusts the TLS channel for the token response (Core 3.1.3.7 item 6): check the signature too.
    const verified = await jwtVerify(tokens.id_token!, createRemoteJWKSet(new URL(`${idp.issuer}/jwks`)), {
      issuer: idp.issuer,
      audience: RP.clientId,
    });
    expect(verified.protectedHeader.alg).toBe('RS256');

    const info = await client.fetchUserInfo(config, tokens.access_token, user.sub);
    expect(info).toMatchObject({ sub: user.sub, service_id: user.claims.service_id, email: user.claims.email });
  });

  it('releases only the claims of the scopes asked for', async () => {
    const user = idp.users[1]!;
    const tokens = await exchange(config, await signIn(config, user.username, user.password, 'openid email'));
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(user.sub);
    expect(claims.email).toBe(user.claims.email);
    expect(claims).not.toHaveProperty('service_id');
    expect(claims).not.toHaveProperty('eduperson_principal_name');
    expect(claims).not.toHaveProperty('name');
  });

  it('serves an accessible login page listing the demo accounts', async () => {
    const page = await new Browser().follow((await beginLogin(config)).authorizationUrl, REDIRECT_URI);
    expect(page.response?.status).toBe(200);
    expect(page.response?.headers.get('cache-control')).toBe('no-store');
    const html = await page.response!.text();
    expect(html).toContain('<html lang="en">');
    expect(html).toMatch(/<label for="username">Username<\/label>\s*<input id="username" name="username"/);
    expect(html).toMatch(
      /<label for="password">Password<\/label>\s*<input id="password" name="password" type="password"/,
    );
    expect(html).toContain('<button type="submit">Sign in</button>');
    expect(html).toContain(`action="${page.url.pathname}/abort"`);
    expect(html).toContain('<button type="submit">Cancel</button>');
    for (const user of idp.users) expect(html).toContain(`<code>${user.password}</code>`);
  });

  it('shows the form again with an alert on a wrong password, and accepts the right one after', async () => {
    const pending = await beginLogin(config);
    const browser = new Browser();
    const page = await browser.follow(pending.authorizationUrl, REDIRECT_URI);
    const action = loginFormAction(await page.response!.text(), page.url);

    const wrong = await browser.submit(action, { username: 'alice', password: 'not-her-password' }, REDIRECT_URI);
    expect(wrong.response?.status).toBe(200);
    const html = await wrong.response!.text();
    expect(html).toMatch(
      /<p id="login-error" class="error" role="alert">The username or password is not correct\.<\/p>/,
    );
    expect(html).toContain('value="alice"');

    const right = await browser.submit(action, { username: 'alice', password: 'alice-password' }, REDIRECT_URI);
    expect(right.response).toBeNull();
    expect(right.url.searchParams.get('code')).toBeTruthy();
  });

  it('answers Cancel with access_denied at the redirect URI', async () => {
    const pending = await beginLogin(config);
    const browser = new Browser();
    const page = await browser.follow(pending.authorizationUrl, REDIRECT_URI);
    const action = loginFormAction(await page.response!.text(), page.url);
    const back = await browser.submit(`${action.href}/abort`, {}, REDIRECT_URI);
    expect(back.response).toBeNull();
    expect(back.url.searchParams.get('error')).toBe('access_denied');
    expect(back.url.searchParams.get('state')).toBe(pending.state);
    await expect(exchange(config, { ...pending, callback: back.url })).rejects.toMatchObject({
      error: 'access_denied',
    });
  });

  it('refuses an authorization request without PKCE', async () => {
    const url = client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT_URI, scope: 'openid', state: 'abc' });
    const back = await new Browser().follow(url, REDIRECT_URI);
    expect(back.url.searchParams.get('error')).toBe('invalid_request');
    expect(back.url.searchParams.get('error_description')).toMatch(/PKCE/);
  });

  it('refuses an interaction without its cookie, and an oversized form', async () => {
    const unknown = await fetch(`${idp.url}/interaction/no-such-uid`);
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('Sign-in expired');

    const browser = new Browser();
    const page = await browser.follow((await beginLogin(config)).authorizationUrl, REDIRECT_URI);
    const action = loginFormAction(await page.response!.text(), page.url);
    const big = await browser.submit(action, { username: 'alice', password: 'x'.repeat(10_000) }, REDIRECT_URI);
    expect(big.response?.status).toBe(413);
  });
});
