import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as client from 'openid-client';
import { decodeJwt } from 'jose';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { RP_REDIRECT, RP_SECRET } from '../support/harness.js';
import { UserAgent } from '../support/user-agent.js';
import { DPOP_PUBLIC, DPOP_PUBLIC_REDIRECT, startDpopTokenService, type DpopHarness } from './support/dpop-harness.js';

/**
 * Interoperability: openid-client 6, a relying party we did not write, uses its own DPoP support
 * (`getDPoPHandle`, RFC 9449) against the token service with DPoP on and nonces required, through the whole
 * flow: discovery, authorize with PKCE and dpop_jkt, the upstream login, code exchange (with its use_dpop_nonce
 * retry), userinfo with DPoP, refresh, introspection.
 */
describe.each(DATABASE_KINDS)('openid-client with DPoP (%s)', (kind) => {
  let h: DpopHarness;

  beforeAll(async () => {
    h = await startDpopTokenService({ kind, upstream: true, dpop: { nonceRequired: true } });
  });
  afterAll(async () => h?.close());

  async function login(rp: client.Configuration, redirectUri: string, scope: string, dpopJkt?: string) {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(rp, {
      redirect_uri: redirectUri,
      scope,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
      ...(dpopJkt ? { dpop_jkt: dpopJkt } : {}),
    });
    const ua = new UserAgent();
    const page = await ua.follow(url.href, redirectUri);
    const user = h.idp!.users[0]!;
    const back = await ua.login(page as { url: string; response: Response }, user.username, user.password, redirectUri);
    expect(back.response, 'the login ends in a redirect to the relying party').toBeNull();
    return {
      callback: new URL(back.url),
      checks: { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true },
      user,
    };
  }

  it('a public client: dpop_jkt, exchange, userinfo and refresh, all bound to its key', async () => {
    const rp = await client.discovery(new URL(h.issuer), DPOP_PUBLIC, undefined, client.None(), {
      execute: [client.allowInsecureRequests],
    });
    expect(rp.serverMetadata().dpop_signing_alg_values_supported).toEqual(['ES256', 'ES384']);
    const DPoP = client.getDPoPHandle(rp, await client.randomDPoPKeyPair('ES256'));
    const jkt = await DPoP.calculateThumbprint();

    const { callback, checks, user } = await login(
      rp,
      DPOP_PUBLIC_REDIRECT,
      'openid profile email offline_access',
      jkt,
    );
    const tokens = await client.authorizationCodeGrant(rp, callback, checks, undefined, { DPoP });
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt });
    const sub = tokens.claims()!.sub;

    const info = await client.fetchUserInfo(rp, tokens.access_token, sub, { DPoP });
    expect(info).toMatchObject({ sub, email: user.claims.email });

    const refreshed = await client.refreshTokenGrant(rp, tokens.refresh_token!, undefined, { DPoP });
    expect(refreshed.token_type.toLowerCase()).toBe('dpop');
    expect(decodeJwt(refreshed.access_token).cnf).toEqual({ jkt });
    expect(await client.fetchUserInfo(rp, refreshed.access_token, sub, { DPoP })).toMatchObject({ sub });

    // Another key cannot refresh the bound grant (RFC 9449 §5); the refresh token survives the attempt.
    const thief = client.getDPoPHandle(rp, await client.randomDPoPKeyPair('ES256'));
    await expect(
      client.refreshTokenGrant(rp, refreshed.refresh_token!, undefined, { DPoP: thief }),
    ).rejects.toMatchObject({ error: 'invalid_dpop_proof' });
    const again = await client.refreshTokenGrant(rp, refreshed.refresh_token!, undefined, { DPoP });
    expect(again.token_type.toLowerCase()).toBe('dpop');
  });

  it('a confidential client: introspection shows cnf.jkt, and the bound token used as a Bearer token gets 401', async () => {
    const rp = await client.discovery(new URL(h.issuer), 'demo-rp', RP_SECRET, undefined, {
      execute: [client.allowInsecureRequests],
    });
    const DPoP = client.getDPoPHandle(rp, await client.randomDPoPKeyPair('ES384'));
    const jkt = await DPoP.calculateThumbprint();
    const { callback, checks } = await login(rp, RP_REDIRECT, 'openid profile email offline_access');
    const tokens = await client.authorizationCodeGrant(rp, callback, checks, undefined, { DPoP });
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
    const sub = tokens.claims()!.sub;

    const introspected = await client.tokenIntrospection(rp, tokens.access_token);
    expect(introspected).toMatchObject({ active: true, client_id: 'demo-rp', token_type: 'DPoP', cnf: { jkt } });
    expect(await client.fetchUserInfo(rp, tokens.access_token, sub, { DPoP })).toMatchObject({ sub });

    await expect(client.fetchUserInfo(rp, tokens.access_token, sub)).rejects.toMatchObject({ status: 401 });
    const raw = await fetch(h.userinfoEndpoint, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token"/);
  });
});
