import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { IDV_CALLBACK_PATH } from '../../src/index.js';
import { buildBridgeApp } from '../support/bridge-app.js';
import {
  initiated,
  institutionalIdentity,
  institutionalUser,
  loginPage,
  newWallet,
  PORTAL_CALLBACK,
  portalRedirect,
  signInAtProvider,
  startIdvBed,
  unknownHolderSession,
  walletIdentity,
  type IdvBed,
} from './support/idv-bed.js';
import { FetchBrowser } from './support/fetch-browser.js';

/**
 * Identity verification end to end (000 §4.2, §3.2, flows.md 5'–7'): the test wallet presents an unknown holder
 * (202), the bridge sends the person to the real development OpenID provider, the callback creates the identity,
 * the wallet binding and the federation binding and completes the session (200, isNewUser), and the next login of
 * the same wallet uses the binding.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe.each(DATABASE_KINDS)('IDV success (%s)', (kind) => {
  let bed: IdvBed;
  const users = ['ada', 'ben', 'cy', 'dee'].map((name) => institutionalUser(name));

  beforeAll(async () => {
    bed = await startIdvBed(kind, users);
  });
  afterAll(async () => bed?.close());
  beforeEach(() => bed.clock.set(new Date()));

  it('initiate → provider login → callback → COMPLETED; complete 200 isNewUser; the next login uses the binding', async () => {
    const wallet = await newWallet(bed);
    const sessionId = await unknownHolderSession(bed, wallet, { oauthSessionId: 'portal-tx-idv-1' });

    const start = await initiated(bed, sessionId);
    expect(Object.keys(start).sort()).toEqual(['authorizationUrl', 'providerId', 'reconciliationSessionId']);
    expect(start.reconciliationSessionId).toMatch(UUID);
    expect(start.providerId).toBe('dev-idp');
    const url = new URL(start.authorizationUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${bed.idp.issuer}/authorize`);
    const params = url.searchParams;
    expect(params.get('response_type')).toBe('code');
    expect(params.get('client_id')).toBe('tessera-bridge-idv');
    expect(params.get('redirect_uri')).toBe(`${bed.b.url}${IDV_CALLBACK_PATH}`);
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.get('nonce')!.length).toBeGreaterThanOrEqual(22);
    // The state is opaque: neither session id can be read from it.
    const state = params.get('state')!;
    for (const id of [sessionId, start.reconciliationSessionId]) {
      expect(state).not.toContain(id);
      expect(Buffer.from(state.replace(/\./g, ''), 'base64url').toString('latin1')).not.toContain(id);
    }
    expect(await bed.idv.status(sessionId)).toEqual({
      statusCode: 200,
      body: { reconciliationStatus: 'REDIRECTED', errorMessage: null },
    });

    const user = bed.user('ada');
    const callbackUrl = await signInAtProvider(bed, start.authorizationUrl, user);
    expect(callbackUrl.searchParams.get('state')).toBe(state);
    const back = await bed.idv.callback(callbackUrl);
    expect(back.statusCode).toBe(303);
    expect(back.location).toBe(portalRedirect(sessionId, { status: 'success' }));
    expect(back.headers['cache-control']).toBe('no-store');
    expect(back.headers['referrer-policy']).toBe('no-referrer');

    expect((await bed.idv.status(sessionId)).body).toEqual({ reconciliationStatus: 'COMPLETED', errorMessage: null });
    expect((await bed.calls.status(sessionId)).body.status).toBe('COMPLETED');
    const done = await bed.calls.complete(sessionId);
    expect(done.statusCode).toBe(200);
    expect(done.body).toMatchObject({ isNewUser: true, claimSource: 'IDV_RECONCILIATION', amr: ['vp'] });
    const userId = done.body.userId as string;

    // One identity, reached both through the institutional login and through the wallet's holder key.
    const identity = await institutionalIdentity(bed, user);
    expect(identity?.internalIdentityId).toBe(userId);
    expect(identity?.claims).toEqual({
      service_id: 'S-ada',
      eduperson_principal_name: 'ada@uni.example',
      email: 'ada@uni.example',
      email_verified: true,
      given_name: 'ada',
      family_name: 'Example',
      name: 'ada Example',
    });
    expect(identity?.bindings).toMatchObject({ walletBound: true, federationBound: true });
    expect((await walletIdentity(bed, wallet))?.internalIdentityId).toBe(userId);

    // The next wallet login of this holder: USE_EXISTING_BINDING, 200, not a new user.
    const { sessionId: next, requestUri } = await bed.calls.create();
    expect((await wallet.respond(requestUri)).status).toBe(200);
    expect((await bed.calls.status(next)).body).toMatchObject({
      status: 'VERIFIED',
      reconciliationPlanType: 'USE_EXISTING_BINDING',
      idvRequired: false,
    });
    const again = await bed.calls.complete(next);
    expect(again).toMatchObject({
      statusCode: 200,
      body: { userId, isNewUser: false, claimSource: 'CANONICAL_BINDING' },
    });
  });

  it('audits idv_initiated, binding_created and idv_completed under the flow’s correlation id, without personal data', async () => {
    const wallet = await newWallet(bed);
    const sessionId = await unknownHolderSession(bed, wallet, { oauthSessionId: 'portal-tx-idv-audit' });
    const start = await initiated(bed, sessionId);
    const user = bed.user('ben');
    expect((await bed.idv.callback(await signInAtProvider(bed, start.authorizationUrl, user))).statusCode).toBe(303);

    const platform = bed.bed.t.platform;
    for (const type of ['idv_initiated', 'binding_created', 'idv_completed']) {
      const { events } = await platform.audit.query({ tenantId: 'demo', type, limit: 500 });
      const mine = events.filter((e) => e.businessIds.reconciliationSessionId === start.reconciliationSessionId);
      expect(mine, type).toHaveLength(1);
      expect(mine[0]!.correlationId).toBe('portal-tx-idv-audit');
      expect(mine[0]!.businessIds.sessionId).toBe(sessionId);
      const text = JSON.stringify(mine[0]);
      for (const personal of [user.sub, 'S-ben', 'ben@uni.example', 'Ben', user.password])
        expect(text, type).not.toContain(personal);
    }
  });

  it('the whole redirect chain with a fetch user browser: provider login form → callback → portal', async () => {
    const wallet = await newWallet(bed);
    const sessionId = await unknownHolderSession(bed, wallet);
    const start = await initiated(bed, sessionId);
    const user = bed.user('cy');

    const browser = new FetchBrowser();
    const { page, html, action } = await loginPage(browser, start.authorizationUrl, bed.b.url!);
    expect(page.url.pathname).toMatch(/^\/interaction\//);
    expect(html).toContain('name="username"');
    // Sign in; the browser follows every 303: the provider's, then the bridge's callback, and stops at the portal.
    const end = await browser.submit(action, { username: user.username, password: user.password }, PORTAL_CALLBACK);
    expect(end.response).toBeNull();
    expect(end.url.href).toBe(portalRedirect(sessionId, { status: 'success' }));
    const visitedCallback = end.visited.find((u) => u.pathname === IDV_CALLBACK_PATH);
    expect(visitedCallback?.origin).toBe(bed.b.url);
    expect(visitedCallback?.searchParams.get('code')).toBeTruthy();

    expect((await bed.idv.status(sessionId)).body.reconciliationStatus).toBe('COMPLETED');
    expect(await bed.calls.complete(sessionId)).toMatchObject({ statusCode: 200, body: { isNewUser: true } });
  });

  it('a replayed callback is refused with the 400 page and changes nothing; submit confirmed true is idempotent', async () => {
    const wallet = await newWallet(bed);
    const sessionId = await unknownHolderSession(bed, wallet);
    const start = await initiated(bed, sessionId);
    const user = bed.user('dee');
    const callbackUrl = await signInAtProvider(bed, start.authorizationUrl, user);
    expect((await bed.idv.callback(callbackUrl)).statusCode).toBe(303);
    const completed = await bed.calls.complete(sessionId);

    const replay = await bed.idv.callback(callbackUrl);
    expect(replay.statusCode).toBe(400);
    expect(replay.location).toBeUndefined();
    expect(replay.headers['content-type']).toMatch(/^text\/html/);
    expect(replay.headers['cache-control']).toBe('no-store');
    expect(replay.body).toContain('not valid, has expired or has already been used');
    expect(replay.body).not.toContain(callbackUrl.searchParams.get('state')!);
    expect((await bed.idv.status(sessionId)).body).toEqual({ reconciliationStatus: 'COMPLETED', errorMessage: null });
    expect(await bed.calls.complete(sessionId)).toEqual(completed);

    // 000 §3.1 "any → COMPLETED" by submit confirmed true: already so, answered again.
    const confirm = await bed.idv.submit(sessionId, { confirmed: true });
    expect(confirm.statusCode).toBe(200);
    expect(Object.keys(confirm.body).sort()).toEqual(['message', 'reconciliationStatus']);
    expect(confirm.body.reconciliationStatus).toBe('COMPLETED');
    expect(
      (await bed.idv.submit(sessionId, { confirmed: true, selectedMatchId: completed.body.userId })).statusCode,
    ).toBe(200);
    expect((await bed.idv.submit(sessionId, { confirmed: true, selectedMatchId: 'someone-else' })).statusCode).toBe(
      409,
    );
    // A completed verification cannot be cancelled.
    const cancel = await bed.idv.submit(sessionId, { confirmed: false });
    expect(cancel).toMatchObject({ statusCode: 409, body: { error: 'invalid_session_state' } });
    expect(await bed.calls.complete(sessionId)).toEqual(completed);
  });

  it('answers the IDV API’s errors with the codes of 000 §7', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await bed.idv.initiate(unknown)).body.error).toBe('session_not_found');
    expect((await bed.idv.initiate(unknown)).statusCode).toBe(404);
    expect((await bed.idv.status(unknown)).statusCode).toBe(404);

    // Not yet VERIFIED: 409; no attempt yet: 409 for status and submit.
    const { sessionId: fresh } = await bed.calls.create();
    expect(await bed.idv.initiate(fresh)).toMatchObject({ statusCode: 409, body: { error: 'invalid_session_state' } });
    expect(await bed.idv.status(fresh)).toMatchObject({ statusCode: 409, body: { error: 'invalid_session_state' } });
    expect((await bed.idv.submit(fresh, { confirmed: false })).statusCode).toBe(409);

    // Malformed submit bodies: 400 invalid_request.
    for (const body of [
      {},
      { confirmed: 'yes' },
      { confirmed: true, extra: 1 },
      { confirmed: true, selectedMatchId: '' },
    ]) {
      const res = await bed.idv.submit(fresh, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('invalid_request');
    }
    expect((await bed.idv.initiate('not-a-uuid')).statusCode).toBe(400);

    // Service-to-service like the session API: no token 401, the token service's token (other scope) 403.
    const noToken = await bed.b.app.inject({ method: 'POST', url: `/auth/oid4vp/sessions/${fresh}/idv/initiate` });
    expect(noToken.statusCode).toBe(401);
    expect((await bed.idv.initiate(fresh, bed.bed.tokenServiceToken)).statusCode).toBe(403);

    // Expired before it was verified: 410 session_expired.
    bed.clock.advance(121);
    expect(await bed.idv.initiate(fresh)).toMatchObject({ statusCode: 410, body: { error: 'session_expired' } });
  });

  it('answers 503 when no institutional provider is configured, and starts nothing', async () => {
    const unconfigured = await buildBridgeApp(bed.bed.t.platform, {
      clock: bed.clock,
      bridge: { ...bed.b.config, idv: { portalUrl: 'http://127.0.0.1:9/portal' } },
    });
    try {
      const wallet = await newWallet(bed);
      const sessionId = await unknownHolderSession(bed, wallet);
      const res = await unconfigured.app.inject({
        method: 'POST',
        url: `/auth/oid4vp/sessions/${sessionId}/idv/initiate`,
        headers: { authorization: `Bearer ${bed.bed.portalToken}` },
      });
      expect(res.statusCode).toBe(503);
      expect(res.json().error).toBe('temporarily_unavailable');
      expect((await bed.idv.status(sessionId)).statusCode).toBe(409);
    } finally {
      await unconfigured.close();
    }
  });
});
