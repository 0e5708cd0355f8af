import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { SignJWT, base64url, decodeJwt, exportSPKI, importJWK } from 'jose';
import { ManualClock } from '@tessera/platform';
import { RP_REDIRECT, RP_SECRET, startTokenService, type TokenServiceHarness } from './support/harness.js';
import { basic, challengeOf, mintCode, postForm, postFormToHost } from './support/codes.js';

/**
 * Every authorization-server line of shared/notes/security-checklist.md, as a test (DPoP lines: see the
 * PKCE/DPoP issue). Runs on PostgreSQL, where concurrency is real.
 */
describe('authorization server security checklist (postgres)', () => {
  let h: TokenServiceHarness;
  const demo = basic('demo-rp', RP_SECRET);
  const other = basic('other-rp', 'other-rp-secret');

  beforeAll(async () => {
    h = await startTokenService({ kind: 'postgres', upstream: true });
  });
  afterAll(async () => h?.close());

  const token = (form: Record<string, string>, auth = demo) =>
    postForm(`${h.issuer}/token`, form, { authorization: auth });
  const exchange = (c: { code: string; verifier: string; redirectUri: string }, auth = demo) =>
    token(
      { grant_type: 'authorization_code', code: c.code, code_verifier: c.verifier, redirect_uri: c.redirectUri },
      auth,
    );
  const introspect = (t: string, auth = demo) =>
    postForm(`${h.issuer}/introspect`, { token: t }, { authorization: auth });

  function authorizeUrl(params: Record<string, string>) {
    const url = new URL(`${h.issuer}/authorize`);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return url.href;
  }
  const validAuthorize = (extra: Record<string, string> = {}) => ({
    response_type: 'code',
    client_id: 'demo-rp',
    redirect_uri: RP_REDIRECT,
    scope: 'openid',
    state: 'xyz',
    code_challenge: challengeOf('a'.repeat(43)),
    code_challenge_method: 'S256',
    ...extra,
  });
  const authorize = (params: Record<string, string>) => fetch(authorizeUrl(params), { redirect: 'manual' });

  describe('redirect URIs [RFC 9700 §2.1, §4.11.2]', () => {
    it.each([
      ['a different path', 'http://127.0.0.1:8400/callback/x'],
      ['a trailing slash', 'http://127.0.0.1:8400/callback/'],
      ['an added query', 'http://127.0.0.1:8400/callback?x=1'],
      ['another host', 'http://localhost:8400/callback'],
      ['upper case', 'http://127.0.0.1:8400/Callback'],
      ['another scheme', 'https://127.0.0.1:8400/callback'],
    ])('a mismatched redirect_uri (%s) never redirects', async (_name, uri) => {
      const res = await authorize(validAuthorize({ redirect_uri: uri }));
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.json()).toMatchObject({ error: 'invalid_request' });
    });

    it('an unknown client never redirects', async () => {
      const res = await authorize(validAuthorize({ client_id: 'nobody' }));
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    });

    it('only the port of a loopback redirect URI may vary (RFC 8252 §7.3)', async () => {
      const res = await authorize(
        validAuthorize({ client_id: 'public-app', redirect_uri: 'http://127.0.0.1:51234/callback', scope: 'openid' }),
      );
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).not.toContain('127.0.0.1:51234');
      const wrongPath = await authorize(
        validAuthorize({ client_id: 'public-app', redirect_uri: 'http://127.0.0.1:51234/other', scope: 'openid' }),
      );
      expect(wrongPath.status).toBe(400);
      // A native client with a secret may vary the port too.
      const native = await authorize(
        validAuthorize({ client_id: 'native-app', redirect_uri: 'http://127.0.0.1:51234/callback', scope: 'openid' }),
      );
      expect(native.status).toBe(303);
      expect(native.headers.get('location')).not.toContain('127.0.0.1:51234');
    });

    it('a confidential web client on a loopback address gets exactly its registered port (issue 14 §2)', async () => {
      // demo-rp is registered at http://127.0.0.1:8400/callback.
      const res = await authorize(validAuthorize({ redirect_uri: 'http://127.0.0.1:8401/callback' }));
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    });
  });

  describe('authorization response', () => {
    it('errors carry state and iss [RFC 9207], and the page forbids framing', async () => {
      const res = await authorize(validAuthorize({ scope: 'openid admin' }));
      expect(res.status).toBe(303);
      const loc = new URL(res.headers.get('location')!);
      expect(loc.origin + loc.pathname).toBe(RP_REDIRECT);
      expect(loc.searchParams.get('error')).toBe('invalid_scope');
      expect(loc.searchParams.get('state')).toBe('xyz');
      expect(loc.searchParams.get('iss')).toBe(h.issuer);
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    });

    it('a form POST to the authorization endpoint answers 303, never 307 [RFC 9700 §4.12]', async () => {
      const res = await fetch(`${h.issuer}/authorize`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(validAuthorize({ scope: 'openid nope' })).toString(),
      });
      expect(res.status).toBe(303);
    });
  });

  describe('PKCE [RFC 7636 §4.1, §4.4.1, §4.6; RFC 9700 §2.1.1]', () => {
    it('a request without code_challenge gets invalid_request and no code', async () => {
      const params = validAuthorize();
      delete (params as Record<string, string>).code_challenge;
      const loc = new URL((await authorize(params)).headers.get('location')!);
      expect(loc.searchParams.get('error')).toBe('invalid_request');
      expect(loc.searchParams.get('code')).toBeNull();
    });

    it.each([['plain'], [''], ['S512']])('code_challenge_method %j is rejected', async (method) => {
      const params = validAuthorize({ code_challenge_method: method });
      if (method === '') delete (params as Record<string, string>).code_challenge_method;
      const loc = new URL((await authorize(params)).headers.get('location')!);
      expect(loc.searchParams.get('error')).toBe('invalid_request');
      expect(loc.searchParams.get('code')).toBeNull();
    });

    it('a wrong verifier is invalid_grant', async () => {
      const c = await mintCode(h);
      const res = await exchange({ ...c, verifier: 'b'.repeat(43) });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_grant');
      // The refused attempt did not spend the code.
      expect((await exchange(c)).status).toBe(200);
    });

    it.each([
      ['42 characters', 'a'.repeat(42)],
      ['129 characters', 'a'.repeat(129)],
      ['a character outside the set', `${'a'.repeat(42)}+`],
      ['a space', `${'a'.repeat(42)} `],
    ])('a verifier of %s is rejected, and the verifier never appears in the answer', async (_name, verifier) => {
      const c = await mintCode(h);
      const res = await exchange({ ...c, verifier });
      expect(res.status).toBe(400);
      expect(['invalid_grant', 'invalid_request']).toContain(res.body.error);
      expect(JSON.stringify(res.body)).not.toContain(verifier.trim());
    });

    it('a token request without code_verifier is rejected', async () => {
      const c = await mintCode(h);
      const res = await token({ grant_type: 'authorization_code', code: c.code, redirect_uri: c.redirectUri });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
      // The code was not spent by the failed attempt.
      expect((await exchange(c)).status).toBe(200);
    });
  });

  describe('authorization codes', () => {
    it('are single use: a second redemption fails and revokes what the first issued', async () => {
      const c = await mintCode(h);
      const first = await exchange(c);
      expect(first.status).toBe(200);
      const second = await exchange(c);
      expect(second.status).toBe(400);
      expect(second.body.error).toBe('invalid_grant');
      expect((await introspect(String(first.body.access_token))).body).toEqual({ active: false });
      expect((await introspect(String(first.body.refresh_token))).body).toEqual({ active: false });
    });

    it('a code of client A redeemed by client B fails', async () => {
      const c = await mintCode(h);
      const res = await exchange({ ...c, redirectUri: 'http://127.0.0.1:8401/callback' }, other);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_grant');
      expect((await exchange(c)).status).toBe(200);
    });

    it('a redirect_uri different from the authorization request is invalid_grant', async () => {
      const c = await mintCode(h);
      expect((await exchange({ ...c, redirectUri: 'http://127.0.0.1:8400/other' })).body.error).toBe('invalid_grant');
      expect((await exchange(c)).status).toBe(200);
    });

    it('10 parallel redemptions of one code give exactly one success', async () => {
      const c = await mintCode(h);
      const results = await Promise.all(Array.from({ length: 10 }, () => exchange(c)));
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status === 400 && r.body.error === 'invalid_grant')).toHaveLength(9);
    });
  });

  describe('refresh token rotation [RFC 9700 §4.14.2]', () => {
    it('20 parallel refreshes of one token give exactly one success', async () => {
      const first = await exchange(await mintCode(h));
      const rt = String(first.body.refresh_token);
      const results = await Promise.all(
        Array.from({ length: 20 }, () => token({ grant_type: 'refresh_token', refresh_token: rt })),
      );
      const ok = results.filter((r) => r.status === 200);
      expect(ok).toHaveLength(1);
      expect(results.filter((r) => r.status === 400 && r.body.error === 'invalid_grant')).toHaveLength(19);
    });

    it('reuse of a rotated token revokes the family: its refresh and access tokens introspect inactive', async () => {
      const first = await exchange(await mintCode(h));
      const rotated = await token({ grant_type: 'refresh_token', refresh_token: String(first.body.refresh_token) });
      expect(rotated.status).toBe(200);
      const reuse = await token({ grant_type: 'refresh_token', refresh_token: String(first.body.refresh_token) });
      expect(reuse.body.error).toBe('invalid_grant');
      for (const t of [rotated.body.refresh_token, rotated.body.access_token, first.body.access_token]) {
        expect((await introspect(String(t))).body).toEqual({ active: false });
      }
      expect(
        (await token({ grant_type: 'refresh_token', refresh_token: String(rotated.body.refresh_token) })).body.error,
      ).toBe('invalid_grant');
    });

    it('a wider scope on refresh is invalid_scope; a narrower one is granted', async () => {
      const first = await exchange(await mintCode(h, { scope: 'openid email offline_access' }));
      const wider = await token({
        grant_type: 'refresh_token',
        refresh_token: String(first.body.refresh_token),
        scope: 'openid email profile offline_access',
      });
      expect(wider.body.error).toBe('invalid_scope');
      const narrower = await token({
        grant_type: 'refresh_token',
        refresh_token: String(first.body.refresh_token),
        scope: 'openid',
      });
      expect(narrower.status).toBe(200);
      expect(narrower.body.scope).toBe('openid');
    });

    it('another client cannot use the refresh token', async () => {
      const first = await exchange(await mintCode(h));
      expect(
        (await token({ grant_type: 'refresh_token', refresh_token: String(first.body.refresh_token) }, other)).body
          .error,
      ).toBe('invalid_grant');
    });
  });

  describe('introspection [RFC 7662 §2.1–2.2]', () => {
    it('requires client authentication', async () => {
      const t = await exchange(await mintCode(h));
      const res = await postForm(`${h.issuer}/introspect`, { token: String(t.body.access_token) });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_client');
      const wrong = await introspect(String(t.body.access_token), basic('demo-rp', 'wrong'));
      expect(wrong.status).toBe(401);
    });

    it('answers only {"active": false} for unknown, foreign and garbage tokens', async () => {
      const t = await exchange(await mintCode(h));
      expect((await introspect('not-a-token')).body).toEqual({ active: false });
      expect((await introspect(String(t.body.access_token), other)).body).toEqual({ active: false });
      expect((await introspect(String(t.body.refresh_token), other)).body).toEqual({ active: false });
    });

    it('a token of another tenant is inactive', async () => {
      await h.platform.tenants.ensure({ id: 'beta', displayName: 'Beta', hostNames: ['beta.localhost'] });
      const t = await exchange(await mintCode(h));
      // Same server, other tenant (by Host): demo-rp is not a client of tenant beta, so it cannot even ask.
      const res = await postFormToHost(
        `${h.issuer}/introspect`,
        'beta.localhost',
        { token: String(t.body.access_token) },
        { authorization: demo },
      );
      expect(res.status).toBe(401);
      // beta's own client sees demo's token as inactive: it is not signed by a key of tenant beta.
      const beta = await postFormToHost(
        `${h.issuer}/introspect`,
        'beta.localhost',
        { token: String(t.body.access_token) },
        { authorization: basic('beta-rp', 'beta-rp-secret') },
      );
      expect(beta.status).toBe(200);
      expect(beta.body).toEqual({ active: false });
    });

    it("an access token past its exp, on the service's clock, is inactive and refused at userinfo", async () => {
      const t = await exchange(await mintCode(h));
      const access = String(t.body.access_token);
      const exp = Number(decodeJwt(access).exp);
      const serviceClock = h.ctx.clock;
      h.ctx.clock = new ManualClock(new Date((exp + 1) * 1000));
      try {
        expect((await introspect(access)).body).toEqual({ active: false });
        const userinfo = await fetch(`${h.issuer}/userinfo`, { headers: { authorization: `Bearer ${access}` } });
        expect(userinfo.status).toBe(401);
        // The refresh token lives longer than the access token: still active at that time.
        expect((await introspect(String(t.body.refresh_token))).body).toMatchObject({ active: true });
      } finally {
        h.ctx.clock = serviceClock;
      }
      expect((await introspect(access)).body).toMatchObject({ active: true });
    });
  });

  describe('revocation [RFC 7009 §2.1–2.2]', () => {
    const revoke = (t: string, auth = demo, hint?: string) =>
      postForm(`${h.issuer}/revoke`, { token: t, ...(hint ? { token_type_hint: hint } : {}) }, { authorization: auth });

    it('authenticates the client', async () => {
      expect((await postForm(`${h.issuer}/revoke`, { token: 'x' })).status).toBe(401);
    });

    it('answers 200 for an unknown or already revoked token', async () => {
      expect((await revoke('unknown-token')).status).toBe(200);
      const t = await exchange(await mintCode(h));
      expect((await revoke(String(t.body.access_token))).status).toBe(200);
      expect((await revoke(String(t.body.access_token))).status).toBe(200);
      expect((await introspect(String(t.body.access_token))).body).toEqual({ active: false });
    });

    it("refuses another client's token: it stays active", async () => {
      const t = await exchange(await mintCode(h));
      expect((await revoke(String(t.body.refresh_token), other)).status).toBe(200);
      expect((await introspect(String(t.body.refresh_token))).body.active).toBe(true);
    });

    it('revoking a refresh token kills its access tokens', async () => {
      const t = await exchange(await mintCode(h));
      await revoke(String(t.body.refresh_token), demo, 'refresh_token');
      expect((await introspect(String(t.body.access_token))).body).toEqual({ active: false });
    });
  });

  describe('forged JWTs get 401 with no outbound fetch', () => {
    let elsewhere: Server;
    let elsewhereHits = 0;
    let elsewhereUrl = '';
    beforeAll(async () => {
      elsewhere = createServer((_req, res) => {
        elsewhereHits++;
        res.end('{}');
      });
      await new Promise<void>((r) => elsewhere.listen(0, '127.0.0.1', r));
      elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((r) => elsewhere.close(() => r())));

    const userinfo = (t: string) => fetch(`${h.issuer}/userinfo`, { headers: { authorization: `Bearer ${t}` } });

    it.each([
      'alg none',
      'HS256 with our public key',
      'kid path traversal',
      'kid SQL',
      'jku elsewhere',
      'x5u elsewhere',
    ])('%s', async (kind) => {
      const real = decodeJwt(String((await exchange(await mintCode(h))).body.access_token));
      const claims = { ...real, exp: Math.floor(Date.now() / 1000) + 600 };
      const enc = (o: unknown) => base64url.encode(JSON.stringify(o));
      let forged: string;
      const jwks = (await (await fetch(`${h.issuer}/.well-known/jwks.json`)).json()) as {
        keys: Array<Record<string, unknown>>;
      };
      const publicKey = await importJWK(jwks.keys[0] as never, 'RS256');
      switch (kind) {
        case 'alg none':
          forged = `${enc({ alg: 'none', typ: 'at+jwt' })}.${enc(claims)}.`;
          break;
        case 'HS256 with our public key': {
          const pem = await exportSPKI(publicKey as Parameters<typeof exportSPKI>[0]);
          forged = await new SignJWT(claims)
            .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: String(jwks.keys[0]!.kid) })
            .sign(new TextEncoder().encode(pem));
          break;
        }
        case 'kid path traversal':
        case 'kid SQL': {
          const kid = kind === 'kid SQL' ? "' OR 1=1 --" : '../../../../etc/passwd';
          forged = `${enc({ alg: 'RS256', typ: 'at+jwt', kid })}.${enc(claims)}.${base64url.encode(createHash('sha256').update('x').digest())}`;
          break;
        }
        default: {
          const header = kind === 'jku elsewhere' ? { jku: `${elsewhereUrl}/jwks` } : { x5u: `${elsewhereUrl}/cert` };
          forged = `${enc({ alg: 'RS256', typ: 'at+jwt', kid: 'attacker', ...header })}.${enc(claims)}.${base64url.encode(createHash('sha256').update('x').digest())}`;
        }
      }
      const res = await userinfo(forged);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
      expect((await introspect(forged)).body).toEqual({ active: false });
      expect(elsewhereHits).toBe(0);
    });
  });

  describe('client authentication', () => {
    it('unknown client and wrong secret look the same, with a Basic challenge', async () => {
      const c = await mintCode(h);
      const a = await exchange(c, basic('demo-rp', 'nope'));
      const b = await exchange(c, basic('ghost', 'nope'));
      expect(a.status).toBe(401);
      expect(b.status).toBe(401);
      expect(a.body).toEqual(b.body);
      expect(a.headers.get('www-authenticate')).toMatch(/^Basic/);
    });

    it('client_secret_post works; using two methods at once is invalid_request', async () => {
      const c = await mintCode(h);
      const form = {
        grant_type: 'authorization_code',
        code: c.code,
        code_verifier: c.verifier,
        redirect_uri: c.redirectUri,
        client_id: 'demo-rp',
        client_secret: RP_SECRET,
      };
      const both = await postForm(`${h.issuer}/token`, form, { authorization: demo });
      expect(both.body.error).toBe('invalid_request');
      const post = await postForm(`${h.issuer}/token`, form);
      expect(post.status).toBe(200);
    });
  });
});
