import { PNG } from 'pngjs';
import jsQRModule from 'jsqr';
import { compactVerify, decodeProtectedHeader, importJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@tessera/platform';
import { DATABASE_KINDS, roomInRateLimitWindow } from '@tessera/platform/testing';
import { certificateFromX5c, dnsNames, publicJwkOf } from '../src/crypto/certificates.js';
import { expireSessions } from '../src/commands/expire-sessions.js';
import { bearer, buildBridgeApp, startTestBed, type BridgeApp, type BridgeTestBed } from './support/bridge-app.js';

/**
 * The session API of 000 §4.1 over HTTP, on both engines: fields and codes exactly (§2.1, §7), the request object
 * (RFC 9101, OID4VP §5), the QR (decoded from the PNG), expiry on read and by the cleanup job, the QR page.
 */
// jsqr is CommonJS with an `exports.default`: under NodeNext the default import is the module object.
const jsQR = ((jsQRModule as unknown as { default?: unknown }).default ?? jsQRModule) as (
  data: Uint8ClampedArray,
  width: number,
  height: number,
) => { data: string } | null;

function decodeQr(dataUri: string): string | null {
  expect(dataUri.startsWith('data:image/png;base64,')).toBe(true);
  const png = PNG.sync.read(Buffer.from(dataUri.slice('data:image/png;base64,'.length), 'base64'));
  return jsQR(Uint8ClampedArray.from(png.data), png.width, png.height)?.data ?? null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe.each(DATABASE_KINDS)('session API (%s)', (kind) => {
  let bed: BridgeTestBed;
  let b: BridgeApp;
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    bed = await startTestBed(kind);
    b = await buildBridgeApp(bed.t.platform, { clock, bridge: { publicBaseUrl: 'https://verifier.example' } });
  });
  afterAll(async () => {
    await b?.close();
    await bed?.close();
  });

  const create = (payload: Record<string, unknown> = { queryId: 'wallet-login' }, token = bed.portalToken) =>
    b.app.inject({ method: 'POST', url: '/auth/oid4vp/sessions', headers: bearer(token), payload });
  const status = (id: string, token = bed.portalToken) =>
    b.app.inject({ method: 'GET', url: `/auth/oid4vp/sessions/${id}/status`, headers: bearer(token) });

  it('creates a session: exactly the response fields of 000 §4.1, and a QR of the deep link', async () => {
    const res = await create({
      queryId: 'wallet-login',
      oauthSessionId: 'login-tx-1',
      forceReconciliation: false,
      clientId: 'demo-rp',
      codeChallenge: CHALLENGE,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['qrCodeDataUri', 'qrPageUri', 'requestUri', 'sessionId', 'statusUri']);
    expect(body.sessionId).toMatch(UUID);
    expect(body.statusUri).toBe(`/auth/oid4vp/sessions/${body.sessionId}/status`);
    expect(body.qrPageUri).toBe(`/auth/oid4vp/qr/${body.sessionId}`);
    const link = new URL(body.requestUri);
    expect(link.protocol).toBe('openid4vp:');
    expect(link.searchParams.get('client_id')).toBe('x509_san_dns:verifier.example');
    expect(link.searchParams.get('request_uri')).toMatch(
      /^https:\/\/verifier\.example\/auth\/oid4vp\/requests\/[A-Za-z0-9_-]{22}$/,
    );
    expect(decodeQr(body.qrCodeDataUri)).toBe(body.requestUri);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers the status with exactly the fields of 000 §2.1, CREATED first', async () => {
    const { sessionId } = (await create()).json();
    const res = await status(sessionId);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      sessionId,
      status: 'CREATED',
      idvRequired: false,
      idvRequirementReason: null,
      reconciliationPlanType: null,
    });
  });

  it('refuses bad requests with 400 invalid_request and the error envelope of 000 §7', async () => {
    for (const payload of [
      {},
      { queryId: '' },
      { queryId: 'no-such-query' },
      { queryId: 'wallet-login', extra: 1 },
      { queryId: 'wallet-login', forceReconciliation: 'yes' },
      { queryId: 'wallet-login', codeChallenge: 'short' },
    ]) {
      const res = await create(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_request', error_description: expect.any(String) });
    }
    const malformed = await b.app.inject({
      method: 'POST',
      url: '/auth/oid4vp/sessions',
      headers: { ...bearer(bed.portalToken), 'content-type': 'application/json' },
      payload: '{"queryId":',
    });
    expect(malformed.statusCode).toBe(400);
    expect((await status('not-a-uuid')).statusCode).toBe(400);
  });

  it('answers 404 session_not_found and 409 invalid_session_state', async () => {
    const unknown = await status('00000000-0000-4000-8000-000000000000');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: 'session_not_found', error_description: expect.any(String) });
    const { sessionId } = (await create()).json();
    const early = await b.app.inject({
      method: 'POST',
      url: `/auth/oid4vp/sessions/${sessionId}/complete`,
      headers: bearer(bed.portalToken),
    });
    expect(early.statusCode).toBe(409);
    expect(early.json()).toEqual({
      error: 'invalid_session_state',
      error_description: expect.stringContaining('CREATED'),
    });
    const completeUnknown = await b.app.inject({
      method: 'POST',
      url: '/auth/oid4vp/sessions/00000000-0000-4000-8000-000000000000/complete',
      headers: bearer(bed.portalToken),
    });
    expect(completeUnknown.json().error).toBe('session_not_found');
  });

  it('is service-to-service: no token 401, a token without the scope 403, another tenant sees nothing', async () => {
    const none = await b.app.inject({
      method: 'POST',
      url: '/auth/oid4vp/sessions',
      payload: { queryId: 'wallet-login' },
    });
    expect(none.statusCode).toBe(401);
    const unscoped = await bed.issuer.sign({ sub: 'someone', tenant_id: 'demo', scope: 'openid' });
    const denied = await create({ queryId: 'wallet-login' }, unscoped);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error).toBe('insufficient_scope');
    const redeemOnly = await create({ queryId: 'wallet-login' }, bed.tokenServiceToken);
    expect(redeemOnly.statusCode).toBe(403);
    await bed.t.platform.tenants.ensure({ id: 'other', displayName: 'Other' });
    const otherTenant = await bed.issuer.sign({ sub: 'portal-backend', tenant_id: 'other', scope: 'bridge:sessions' });
    const { sessionId } = (await create()).json();
    expect((await status(sessionId, otherTenant)).json().error).toBe('session_not_found');
    const { events } = await bed.t.platform.audit.query({ tenantId: 'demo', commandId: 'bridge.sessions.create' });
    expect(events.some((e) => e.result === 'success' && e.businessIds.sessionId === sessionId)).toBe(true);
  });

  it('serves a signed request object: typ, content type, x5c leaf signature, client_id prefix, nonce, encryption key', async () => {
    const created = (await create()).json();
    const requestUrl = new URL(new URL(created.requestUri).searchParams.get('request_uri')!);
    const res = await b.app.inject({ method: 'GET', url: requestUrl.pathname });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/oauth-authz-req+jwt');
    expect(res.headers['cache-control']).toBe('no-store');
    const jwt = res.body;
    const header = decodeProtectedHeader(jwt);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'oauth-authz-req+jwt' });
    const leaf = certificateFromX5c((header.x5c as string[])[0]!);
    expect(dnsNames(leaf)).toContain('verifier.example');
    const { payload } = await compactVerify(jwt, await importJWK(await publicJwkOf(leaf), 'ES256'));
    const request = JSON.parse(new TextDecoder().decode(payload));
    expect(request).toMatchObject({
      response_type: 'vp_token',
      client_id: 'x509_san_dns:verifier.example',
      response_mode: 'direct_post.jwt',
      response_uri: `https://verifier.example/auth/oid4vp/responses/${requestUrl.pathname.split('/').pop()}`,
      aud: 'https://self-issued.me/v2',
      dcql_query: { credentials: [{ id: 'wallet-login', format: 'dc+sd-jwt' }] },
    });
    expect(request.nonce).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(request.state).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(request.exp - request.iat).toBe(300);
    const [encKey] = request.client_metadata.jwks.keys;
    expect(encKey).toMatchObject({ kty: 'EC', crv: 'P-256', use: 'enc', alg: 'ECDH-ES' });
    expect(encKey.d).toBeUndefined();
    expect(request.client_metadata.encrypted_response_enc_values_supported).toEqual(['A128GCM', 'A256GCM']);
    expect(request.client_metadata.vp_formats_supported['dc+sd-jwt']).toBeDefined();

    expect((await status(created.sessionId)).json().status).toBe('INTERACTION_STARTED');
    // A second fetch while INTERACTION_STARTED answers the same object and moves nothing.
    const again = await b.app.inject({ method: 'GET', url: requestUrl.pathname });
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe(jwt);
    expect((await status(created.sessionId)).json().status).toBe('INTERACTION_STARTED');
    // Each session has its own nonce and its own encryption key.
    const other = (await create()).json();
    const otherJwt = (
      await b.app.inject({
        method: 'GET',
        url: new URL(new URL(other.requestUri).searchParams.get('request_uri')!).pathname,
      })
    ).body;
    const otherRequest = JSON.parse(Buffer.from(otherJwt.split('.')[1]!, 'base64url').toString());
    expect(otherRequest.nonce).not.toBe(request.nonce);
    expect(otherRequest.client_metadata.jwks.keys[0].x).not.toBe(encKey.x);
    expect(
      (await b.app.inject({ method: 'GET', url: '/auth/oid4vp/requests/AAAAAAAAAAAAAAAAAAAAAA' })).statusCode,
    ).toBe(404);
  });

  it('refuses a response before the request was fetched, with 400 and no state change', async () => {
    const { sessionId, requestUri } = (await create()).json();
    const id = new URL(requestUri).searchParams.get('request_uri')!.split('/').pop();
    const res = await b.app.inject({
      method: 'POST',
      url: `/auth/oid4vp/responses/${id}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'response=abc',
    });
    expect(res.statusCode).toBe(400);
    expect((await status(sessionId)).json().status).toBe('CREATED');
  });

  it("records the wallet's error response (OID4VP §8.5): 200 to the wallet, the session open until the bound", async () => {
    const { sessionId, requestUri } = (await create()).json();
    const path = new URL(new URL(requestUri).searchParams.get('request_uri')!).pathname;
    const responsePath = path.replace('/requests/', '/responses/');
    const post = (payload: string) =>
      b.app.inject({
        method: 'POST',
        url: responsePath,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload,
      });
    await b.app.inject({ method: 'GET', url: path });
    // A repeated parameter or a JSON body is refused before anything moves (and is not counted).
    expect((await post('error=a&error=b')).statusCode).toBe(400);
    const json = await b.app.inject({ method: 'POST', url: responsePath, payload: { error: 'x' } });
    expect(json.statusCode).toBe(415);
    expect((await status(sessionId)).json()).not.toHaveProperty('rejectedResponses');

    // Anyone who saw the QR code can post an error response: it is recorded, and the session stays open.
    expect((await post('error=access_denied&error_description=user+declined')).statusCode).toBe(200);
    expect((await status(sessionId)).json()).toEqual({
      sessionId,
      status: 'INTERACTION_STARTED',
      idvRequired: false,
      idvRequirementReason: null,
      reconciliationPlanType: null,
      rejectedResponses: 1,
      lastRejection: { check: 'wallet_error', reason: 'the wallet answered access_denied' },
    });
    expect((await post('error=invalid_request')).statusCode).toBe(200);
    // The third refused response is the last the default bound (maxFailedResponses 3) admits: ERROR.
    expect((await post('error=access_denied')).statusCode).toBe(200);
    expect((await status(sessionId)).json()).toEqual({
      sessionId,
      status: 'ERROR',
      idvRequired: false,
      idvRequirementReason: null,
      reconciliationPlanType: null,
      failure: { check: 'wallet_error', reason: 'the wallet answered access_denied' },
      rejectedResponses: 3,
      lastRejection: { check: 'wallet_error', reason: 'the wallet answered access_denied' },
    });
    expect((await post('error=access_denied')).statusCode).toBe(400);
    expect((await status(sessionId)).json().rejectedResponses).toBe(3);
  });

  it('expires on read after the timeout (410 session_expired), audited as session_failed', async () => {
    const { sessionId, requestUri } = (await create({ queryId: 'wallet-login', oauthSessionId: 'tx-expiring' })).json();
    clock.advance(299);
    expect((await status(sessionId)).json().status).toBe('CREATED');
    clock.advance(1);
    const gone = await status(sessionId);
    expect(gone.statusCode).toBe(410);
    expect(gone.json()).toEqual({ error: 'session_expired', error_description: expect.any(String) });
    const fetchGone = await b.app.inject({
      method: 'GET',
      url: new URL(new URL(requestUri).searchParams.get('request_uri')!).pathname,
    });
    expect(fetchGone.statusCode).toBe(410);
    expect(
      (
        await b.app.inject({
          method: 'POST',
          url: `/auth/oid4vp/sessions/${sessionId}/complete`,
          headers: bearer(bed.portalToken),
        })
      ).statusCode,
    ).toBe(410);
    const { events } = await bed.t.platform.audit.query({ tenantId: 'demo', type: 'session_failed' });
    const event = events.find((e) => e.businessIds.sessionId === sessionId);
    expect(event).toMatchObject({ correlationId: 'tx-expiring', result: 'failure', details: { check: 'timeout' } });
    expect(JSON.stringify(event)).not.toMatch(/nonce|vp_token/);
  });

  it('the cleanup job expires timed-out sessions and later deletes them', async () => {
    const { sessionId } = (await create()).json();
    clock.advance(301);
    const counts = await expireSessions(b.handle.services);
    expect(counts.expired).toBeGreaterThanOrEqual(1);
    clock.advance(b.config.retention.sessionSeconds + 1);
    const later = await expireSessions(b.handle.services);
    expect(later.deletedSessions).toBeGreaterThanOrEqual(1);
    expect((await status(sessionId)).statusCode).toBe(404);
    expect(b.handle.jobs.map((j) => [j.name, j.intervalSeconds, j.critical])).toEqual([
      ['bridge.sessions.expire', 300, true],
    ]);
  });

  it('rate limits the wallet-facing routes per address (429 rate_limited with Retry-After)', async () => {
    const limits = bed.t.platform.config.rateLimit;
    const before = limits.requestsPerWindow;
    const limited = await buildBridgeApp(bed.t.platform, {
      clock,
      bridge: { publicBaseUrl: 'https://verifier.example' },
    });
    limits.requestsPerWindow = 3;
    try {
      const codes: number[] = [];
      await roomInRateLimitWindow(limits.windowSeconds);
      for (let i = 0; i < 5; i++)
        codes.push(
          (
            await limited.app.inject({
              method: 'GET',
              url: '/auth/oid4vp/requests/AAAAAAAAAAAAAAAAAAAAAA',
              remoteAddress: '203.0.113.9',
            })
          ).statusCode,
        );
      expect(codes).toEqual([404, 404, 404, 429, 429]);
      const refused = await limited.app.inject({
        method: 'POST',
        url: '/auth/oid4vp/responses/AAAAAAAAAAAAAAAAAAAAAA',
        remoteAddress: '203.0.113.9',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'response=x',
      });
      expect(refused.statusCode).toBe(429);
      expect(refused.json().error).toBe('rate_limited');
      expect(refused.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    } finally {
      limits.requestsPerWindow = before;
      await limited.close();
    }
  });

  it('serves an accessible QR page with the deep link and live status, and nothing of the tenant', async () => {
    const { sessionId, requestUri, qrPageUri } = (await create()).json();
    const page = await b.app.inject({ method: 'GET', url: qrPageUri });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    const html = page.body;
    expect(html).toContain('<html lang="en">');
    expect(html).toMatch(/<img src="data:image\/png;base64,[^"]+" alt="[^"]+"/);
    const img = /<img src="([^"]+)"/.exec(html)![1]!;
    expect(decodeQr(img)).toBe(requestUri);
    expect(html).toContain(`href="${requestUri.replaceAll('&', '&amp;')}"`);
    expect(html).toContain('aria-live="polite"');
    expect(html).toContain('setTimeout(poll, 2000)');
    // The portal's stylesheet and icon (issue 14 §7), admitted by the CSP from the portal's origin only.
    expect(html).toContain('<link rel="stylesheet" href="http://127.0.0.1:3000/assets/portal.css">');
    expect(html).toContain('<link rel="icon" href="http://127.0.0.1:3000/favicon.ico">');
    expect(csp).toMatch(/style-src 'nonce-[^']+' http:\/\/127\.0\.0\.1:3000;/);
    expect(csp).toContain('img-src data: http://127.0.0.1:3000;');
    expect(html).not.toMatch(/demo/i);
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)![1];
    expect(html).toContain(`<script nonce="${nonce}">`);
    const polled = await b.app.inject({ method: 'GET', url: `${qrPageUri}/status` });
    expect(polled.json()).toEqual({ status: 'CREATED' });
    const missing = await b.app.inject({ method: 'GET', url: '/auth/oid4vp/qr/00000000-0000-4000-8000-000000000000' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^text\/html/);
    expect(sessionId).toMatch(UUID);
  });
});
