import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as client from 'openid-client';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { RP_REDIRECT, RP_SECRET, startTokenService, type TokenServiceHarness } from './support/harness.js';
import { UserAgent } from './support/user-agent.js';

/**
 * Issue 3, "How it must show": openid-client, as a real relying party, runs the whole flow against our server
 * with the upstream login at a real OpenID provider (the embedded institutional provider, oidc-provider):
 * discovery, authorize with PKCE, login upstream, code exchange, ID token validation, userinfo, refresh,
 * introspection, revocation.
 */
describe.each(DATABASE_KINDS)('federated login end to end (%s)', (kind) => {
  let h: TokenServiceHarness;
  let rp: client.Configuration;

  beforeAll(async () => {
    h = await startTokenService({ kind });
    rp = await client.discovery(new URL(h.issuer), 'demo-rp', RP_SECRET, undefined, {
      execute: [client.allowInsecureRequests],
    });
  });
  afterAll(async () => h?.close());

  async function login(scope = 'openid profile email service_id offline_access') {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(rp, {
      redirect_uri: RP_REDIRECT,
      scope,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const ua = new UserAgent();
    const page = await ua.follow(url.href, RP_REDIRECT);
    expect(page.response?.status).toBe(200);
    const user = h.idp!.users[0]!;
    const back = await ua.login(page as { url: string; response: Response }, user.username, user.password, RP_REDIRECT);
    expect(back.response, 'the login ends in a redirect to the relying party').toBeNull();
    return { callback: new URL(back.url), verifier, state, nonce, user };
  }

  it('discovery lists every member of the spec with its values', async () => {
    const meta = rp.serverMetadata();
    expect(meta).toMatchObject({
      issuer: h.issuer,
      authorization_endpoint: `${h.issuer}/authorize`,
      token_endpoint: `${h.issuer}/token`,
      introspection_endpoint: `${h.issuer}/introspect`,
      revocation_endpoint: `${h.issuer}/revoke`,
      jwks_uri: `${h.issuer}/.well-known/jwks.json`,
      userinfo_endpoint: `${h.issuer}/userinfo`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      code_challenge_methods_supported: ['S256'],
      scopes_supported: ['openid', 'profile', 'email', 'service_id', 'offline_access'],
    });
    expect(meta.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    const other = await (await fetch(`${h.issuer}/.well-known/oauth-authorization-server`)).json();
    expect(other).toEqual(await (await fetch(`${h.issuer}/.well-known/openid-configuration`)).json());
  });

  it('runs authorize, upstream login, exchange, userinfo, refresh, introspection and revocation', async () => {
    const { callback, verifier, state, nonce, user } = await login();
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('iss')).toBe(h.issuer);

    const tokens = await client.authorizationCodeGrant(rp, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.refresh_token).toBeTruthy();
    const id = tokens.claims()!;
    expect(id).toMatchObject({
      iss: h.issuer,
      aud: 'demo-rp',
      nonce,
      amr: ['federation'],
      email: user.claims.email,
      service_id: user.claims.service_id,
    });
    expect(typeof id.acr).toBe('string');
    expect(typeof id.auth_time).toBe('number');
    expect(id.exp! - id.iat).toBe(3600);

    const at = decodeJwt(tokens.access_token);
    expect(at).toMatchObject({
      iss: h.issuer,
      sub: id.sub,
      aud: 'demo-rp',
      scope: 'openid profile email service_id offline_access',
      service_id: user.claims.service_id,
      amr: ['federation'],
    });
    expect(at.exp! - at.iat!).toBe(3600);
    // The JWT profile of RFC 9068: typ at+jwt (§2.1), signed by a key of the issuer's JWKS (§4), and its claims (§2.2).
    const jwks = createRemoteJWKSet(new URL(`${h.issuer}/.well-known/jwks.json`));
    const verified = await jwtVerify(tokens.access_token, jwks, {
      issuer: h.issuer,
      audience: 'demo-rp',
      typ: 'at+jwt',
      algorithms: ['RS256'],
    });
    expect(verified.protectedHeader.kid).toEqual(expect.any(String));
    expect(at).toMatchObject({ client_id: 'demo-rp', tenant_id: 'demo', sid: expect.any(String) });
    expect(at.jti).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const info = await client.fetchUserInfo(rp, tokens.access_token, id.sub);
    expect(info).toMatchObject({
      sub: id.sub,
      email: user.claims.email,
      given_name: user.claims.given_name,
      service_id: user.claims.service_id,
    });

    const introspected = await client.tokenIntrospection(rp, tokens.access_token);
    expect(introspected).toMatchObject({
      active: true,
      sub: id.sub,
      client_id: 'demo-rp',
      iss: h.issuer,
      token_type: 'Bearer',
    });
    expect(introspected.scope).toBe('openid profile email service_id offline_access');
    expect(await client.tokenIntrospection(rp, tokens.refresh_token!)).toMatchObject({
      active: true,
      client_id: 'demo-rp',
      sub: id.sub,
    });

    const refreshed = await client.refreshTokenGrant(rp, tokens.refresh_token!);
    expect(refreshed.refresh_token).toBeTruthy();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.id_token).toBeUndefined();
    const refreshedAt = await jwtVerify(refreshed.access_token, jwks, { issuer: h.issuer, typ: 'at+jwt' });
    expect(refreshedAt.payload).toMatchObject({ sub: id.sub, client_id: 'demo-rp', sid: at.sid, scope: at.scope });
    expect(refreshedAt.payload.jti).not.toBe(at.jti);
    expect((await client.tokenIntrospection(rp, tokens.refresh_token!)).active).toBe(false);

    await client.tokenRevocation(rp, refreshed.refresh_token!, { token_type_hint: 'refresh_token' });
    expect(await client.tokenIntrospection(rp, refreshed.refresh_token!)).toEqual({ active: false });
    // Revoking the refresh token revoked its family: the access tokens are inactive too.
    expect(await client.tokenIntrospection(rp, refreshed.access_token)).toEqual({ active: false });
    expect(await client.tokenIntrospection(rp, tokens.access_token)).toEqual({ active: false });
    await expect(client.fetchUserInfo(rp, refreshed.access_token, id.sub)).rejects.toThrow();
  });

  it('finds the same identity again through its federation binding', async () => {
    const first = await login('openid');
    const a = await client.authorizationCodeGrant(rp, first.callback, {
      pkceCodeVerifier: first.verifier,
      expectedState: first.state,
      expectedNonce: first.nonce,
    });
    const second = await login('openid');
    const b = await client.authorizationCodeGrant(rp, second.callback, {
      pkceCodeVerifier: second.verifier,
      expectedState: second.state,
      expectedNonce: second.nonce,
    });
    expect(b.claims()!.sub).toBe(a.claims()!.sub);
  });

  it('a cancelled upstream login returns access_denied to the relying party with its state', async () => {
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(rp, {
      redirect_uri: RP_REDIRECT,
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'st-cancel',
    });
    const ua = new UserAgent();
    const page = await ua.follow(url.href, RP_REDIRECT);
    const back = await ua.login(page as { url: string; response: Response }, '', '', RP_REDIRECT, 'abort');
    const cb = new URL(back.url);
    expect(cb.searchParams.get('error')).toBe('access_denied');
    expect(cb.searchParams.get('state')).toBe('st-cancel');
    expect(cb.searchParams.get('iss')).toBe(h.issuer);
    expect(cb.searchParams.get('code')).toBeNull();
  });
});
