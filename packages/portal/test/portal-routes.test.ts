import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { readQrFromDataUri } from './browser/support/qr.js';
import { attributeOf, textOf } from './support/html.js';
import { startStack, type Stack } from './support/stack.js';
import { startStandInBridge, type StandInBridge } from './support/stand-in-bridge.js';
import { HttpClient } from '@tessera/platform/testing';

/** What the page's script reads from the portal's status endpoints. */
interface StatusAnswer {
  state: string;
  message: string;
  final: boolean;
  next: string;
}

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

/**
 * The portal's routes over HTTP, on both engines: the real token service checks the requests and issues the portal's
 * service token; the bridge is the STAND-IN of test/support/stand-in-bridge.ts (000 §4.1 exactly), so that every
 * session state can be set by the test (a failed check, EXPIRED, removed, the bridge down). The identity-verification
 * routes run against the real bridge and the development identity provider in test/identity-verification.test.ts.
 */
describe.each(DATABASE_KINDS)('portal routes (%s)', (kind) => {
  let stack: Stack;
  let bridge: StandInBridge;
  let tokenRequests = 0;

  beforeAll(async () => {
    bridge = await startStandInBridge();
    // The portal's service calls go through the real fetch; the wrapper only counts its token requests.
    const counting: typeof fetch = (input, init) => {
      if (String(input).endsWith('/token')) tokenRequests += 1;
      return fetch(input, init);
    };
    stack = await startStack({
      kind,
      bridgeUrl: bridge.url,
      onTokenService: (url) => bridge.trustIssuer(url),
      portal: { fetch: counting },
    });
  });
  afterAll(async () => {
    await stack?.close();
    await bridge?.close();
  });
  const request = (extra: Record<string, string> = {}) =>
    new URLSearchParams({
      response_type: 'code',
      client_id: 'demo-rp',
      redirect_uri: stack.rp.redirectUri,
      scope: 'openid profile service_id',
      state: 'rp-state-1',
      nonce: 'rp-nonce-1',
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
      ...extra,
    });

  /** A started sign-in: the page, the client holding its cookie, its poll URL and the bridge's session. */
  async function signin(params = request(), language = 'en') {
    const client = new HttpClient({ 'accept-language': language });
    const res = await client.request(`${stack.portal.url}/signin?${params}`);
    const html = await res.text();
    expect(res.status, html).toBe(200);
    const poll = attributeOf(html, 'status', 'data-poll-url')!;
    const session = [...bridge.sessions.values()].at(-1)!;
    const status = async () => (await client.request(`${stack.portal.url}${poll}`)).json();
    return { client, res, html, poll, session, status };
  }

  it('GET /api/health answers 200 {"status":"ok"} (000 §4.5)', async () => {
    const res = await fetch(`${stack.portal.url}/api/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('an unknown client gets an error page, never a redirect, in the browser language', async () => {
    for (const [language, heading] of [
      ['en', 'Sign-in cannot continue'],
      ['de-AT, en;q=0.1', 'Die Anmeldung kann nicht fortgesetzt werden'],
    ] as const) {
      const res = await fetch(`${stack.portal.url}/signin?${request({ client_id: 'nobody' })}`, {
        headers: { 'accept-language': language },
        redirect: 'manual',
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      const html = await res.text();
      expect(html).toContain(`<html lang="${language.slice(0, 2)}">`);
      expect(textOf(html, 'main')).toContain(heading);
    }
    const other = await fetch(`${stack.portal.url}/signin?${request({ redirect_uri: 'https://evil.example/cb' })}`, {
      redirect: 'manual',
    });
    expect(other.status).toBe(400);
    const twice = await fetch(`${stack.portal.url}/signin?${request()}&client_id=demo-rp`, { redirect: 'manual' });
    expect(twice.status).toBe(400);
    expect(bridge.sessions.size).toBe(0);
  });

  it('a redirectable error goes back to the relying party with error, state and iss (RFC 6749 §4.1.2.1, RFC 9207)', async () => {
    const bad = await fetch(`${stack.portal.url}/signin?${request({ scope: 'openid admin' })}`, { redirect: 'manual' });
    expect(bad.status).toBe(303);
    const back = new URL(bad.headers.get('location')!);
    expect(back.href.startsWith(stack.rp.redirectUri)).toBe(true);
    expect(Object.fromEntries(back.searchParams)).toMatchObject({
      error: 'invalid_scope',
      state: 'rp-state-1',
      iss: stack.tokenService.url,
    });

    const repeated = await fetch(`${stack.portal.url}/signin?${request()}&state=second`, { redirect: 'manual' });
    expect(new URL(repeated.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    const noPkce = request();
    noPkce.delete('code_challenge');
    const refused = await fetch(`${stack.portal.url}/signin?${noPkce}`, { redirect: 'manual' });
    expect(new URL(refused.headers.get('location')!).searchParams.get('error_description')).toContain('code_challenge');
    expect(bridge.sessions.size).toBe(0);
  });

  it('a valid request: a session bound to it, the QR of its request URI, the transaction in a signed HttpOnly cookie', async () => {
    const { res, html, session } = await signin();
    expect(session.clientId).toBe('demo-rp');
    // The relying party is named by its display name from the token service's registry (issue 14 §7).
    expect(html).toContain('Demo Library');
    expect(session.codeChallenge).toBe(CHALLENGE);
    expect(session.oauthSessionId).toMatch(/^[0-9a-f-]{36}$/);
    const qr = attributeOf(html, 'qr', 'src')!;
    expect(readQrFromDataUri(qr)).toBe(session.requestUri);
    expect(attributeOf(html, 'open-in-wallet', 'href')).toBe(session.requestUri);
    expect(attributeOf(html, 'qr', 'alt')).toContain('QR code');
    expect(attributeOf(html, 'status-text', 'aria-live')).toBe('polite');
    expect(html).toContain('<script src="/assets/signin.js" defer></script>');
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(
      /^tessera-signin=1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/,
    );
    // The transaction's lifetime (30 minutes), counted from its creation a moment ago.
    const maxAge = Number(/Max-Age=(\d+)/.exec(cookie)![1]);
    expect(maxAge).toBeGreaterThan(1790);
    expect(maxAge).toBeLessThanOrEqual(1800);
    expect(res.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('the status follows the session: waiting, opened, checking, failed with the reason', async () => {
    const { session, status } = await signin();
    expect(await status()).toEqual({
      state: 'waiting',
      message: 'Waiting for your wallet. Scan the QR code or open the request in your wallet app.',
      final: false,
    });
    session.status = 'INTERACTION_STARTED';
    expect(await status()).toMatchObject({ state: 'opened', final: false });
    session.status = 'VERIFYING';
    expect(await status()).toMatchObject({ state: 'checking', message: 'Checking your credential…', final: false });
    session.status = 'ERROR';
    session.failure = { check: 'status', reason: 'revoked' };
    expect(await status()).toEqual({
      state: 'failed',
      message: 'The sign-in did not succeed. The credential has been revoked or suspended.',
      final: true,
    });
  });

  it('expired and unknown sessions are "expired"; a page of another transaction, or no cookie, is "lost"', async () => {
    const { session, status, poll, client } = await signin();
    session.status = 'EXPIRED';
    expect(await status()).toMatchObject({ state: 'expired', final: true });
    bridge.sessions.delete(session.id);
    expect(await status()).toMatchObject({ state: 'expired', final: true });
    expect(await (await fetch(`${stack.portal.url}${poll}`)).json()).toMatchObject({ state: 'lost', final: true });
    const other = await signin();
    expect(await (await client.request(`${stack.portal.url}${other.poll}`)).json()).toMatchObject({ state: 'lost' });
    // A cookie whose payload was changed (another session id) fails its MAC.
    const [version, payload, mac] = [...client.cookies(new URL(stack.portal.url).host).values()][0]!.split('.');
    const changed = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sessionId: other.session.id }),
    ).toString('base64url');
    const forged = await fetch(`${stack.portal.url}${poll}`, {
      headers: { cookie: `tessera-signin=${version}.${changed}.${mac}` },
    });
    expect(await forged.json()).toMatchObject({ state: 'lost' });
  });

  it('a known holder: complete answers 200 and the page goes to /authorize with the original request and the wallet hint', async () => {
    const { session, status } = await signin();
    session.knownHolder = true;
    session.status = 'VERIFIED';
    const answer = (await status()) as StatusAnswer;
    expect(answer.state).toBe('verified');
    const next = new URL(answer.next);
    expect(`${next.origin}${next.pathname}`).toBe(`${stack.tokenService.url}/authorize`);
    expect(Object.fromEntries(next.searchParams)).toEqual({
      ...Object.fromEntries(request()),
      login_hint: `oid4vp:${session.id}`,
    });
    expect(bridge.calls.filter((c) => c === `POST /auth/oid4vp/sessions/${session.id}/complete`)).toHaveLength(1);
  });

  it('the callback names the reason in plain words, keeps the reference, and restarts with the original request', async () => {
    const { client, session } = await signin();
    const cases: Array<[string, string]> = [
      ['token_exchange_failed', 'The answer from your institution could not be confirmed.'],
      ['access_denied', 'The sign-in at your institution was cancelled or refused.'],
      ['cancelled', 'The sign-in at your institution was cancelled or refused.'],
      ['expired', 'The sign-in took too long and has expired.'],
      ['already_bound', 'Your institution account is already linked to a different wallet.'],
      ['session_invalid', 'This sign-in can no longer be finished'],
      ['processing_failed', 'The answer from your institution could not be processed. Please start again.'],
      ['aborted', 'The identity verification was cancelled.'],
      ['something_new', 'Something went wrong while confirming your identity.'],
    ];
    for (const [reason, sentence] of cases) {
      const html = await (
        await client.request(`${stack.portal.url}/wallet/callback?session=${session.id}&status=error&reason=${reason}`)
      ).text();
      expect(textOf(html, 'main')).toContain(sentence);
      expect(html).toContain(`Reference for support: ${reason}`);
      expect(attributeOf(html, 'start-again', 'href')).toBe(`/signin?${request()}`);
    }
    const markup = await (
      await client.request(`${stack.portal.url}/wallet/callback?session=${session.id}&status=error&reason=%3Cscript%3E`)
    ).text();
    expect(markup).not.toContain('<script>');
    const mismatch = await client.request(
      `${stack.portal.url}/wallet/callback?session=00000000-0000-4000-8000-000000000000&status=success`,
    );
    expect(mismatch.status).toBe(400);
    expect(await mismatch.text()).toContain(
      'This link does not belong to the sign-in that was started in this browser.',
    );
    const stranger = await fetch(`${stack.portal.url}/wallet/callback?session=${session.id}&status=success`);
    expect(stranger.status).toBe(400);
  });

  it('a bridge that is down gives a 503 page in the browser language, and the status poll a 503 the script retries', async () => {
    const { client, poll } = await signin();
    // The last test that needs the bridge: it stays down for the rest of the file.
    await bridge.close();
    const res = await fetch(`${stack.portal.url}/signin?${request()}`, { headers: { 'accept-language': 'de' } });
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('Der Anmeldedienst ist vorübergehend nicht erreichbar.');
    expect((await client.request(`${stack.portal.url}${poll}`)).status).toBe(503);
  });

  it('the service token is fetched once and reused (client_credentials, cached until shortly before expiry)', async () => {
    expect(tokenRequests).toBe(1);
  });
});
