import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { IDV_CALLBACK_PATH, IDV_FAILURES } from '../../src/index.js';
import { IdvStateCodec } from '../../src/idv/crypto/idv-state.js';
import {
  ATTEMPT_SECONDS,
  initiated,
  institutionalIdentity,
  institutionalUser,
  newWallet,
  portalRedirect,
  SESSION_SECONDS,
  PORTAL_URL,
  signInAtProvider,
  startIdvBed,
  unknownHolderSession,
  type IdvBed,
} from './support/idv-bed.js';

/**
 * The state of the IDV callback (000 §2.4 "signed, opaque, encodes both session ids, expires and is single-use";
 * §4.2 (1); security checklist "state signed, bound to the session, short-lived and single-use"): a missing,
 * tampered, forged, expired, reused or cross-session state is answered with the 400 page and changes nothing; the
 * genuine callback still works afterwards where its attempt is still open.
 */
describe.each(DATABASE_KINDS)('IDV state (%s)', (kind) => {
  let bed: IdvBed;
  const users = ['tamper', 'cross', 'superseded', 'late', 'expiredsession'].map((n) => institutionalUser(n));

  beforeAll(async () => {
    bed = await startIdvBed(kind, users);
  });
  afterAll(async () => bed?.close());
  beforeEach(() => bed.clock.set(new Date()));

  const withState = (url: URL, state: string | null) => {
    const copy = new URL(url);
    if (state === null) copy.searchParams.delete('state');
    else copy.searchParams.set('state', state);
    return copy;
  };

  async function expectRefused(url: URL | string) {
    const res = await bed.idv.callback(url);
    expect(res.statusCode).toBe(400);
    expect(res.location).toBeUndefined();
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.body).toContain('not valid, has expired or has already been used');
    // The portal's stylesheet (issue 14 §7), and no script.
    expect(res.body).toContain(`<link rel="stylesheet" href="${PORTAL_URL}/assets/portal.css">`);
    expect(res.headers['content-security-policy']).toContain(`style-src ${new URL(PORTAL_URL).origin};`);
    expect(res.body).not.toContain('<script');
  }

  it('a tampered, truncated, foreign-format, missing or repeated state: 400, nothing changes, the genuine one then works', async () => {
    const wallet = await newWallet(bed);
    const sessionId = await unknownHolderSession(bed, wallet);
    const start = await initiated(bed, sessionId);
    const callbackUrl = await signInAtProvider(bed, start.authorizationUrl, bed.user('tamper'));
    const state = callbackUrl.searchParams.get('state')!;
    const flip = (s: string, at: number) => s.slice(0, at) + (s[at] === 'A' ? 'B' : 'A') + s.slice(at + 1);

    for (const bad of [
      flip(state, state.length - 5),
      flip(state, Math.floor(state.length / 2)),
      state.slice(0, -4),
      'x',
      'e1.a.b.c.d.e',
      `${state}x`,
    ]) {
      await expectRefused(withState(callbackUrl, bad));
    }
    await expectRefused(withState(callbackUrl, null));
    await expectRefused(`${callbackUrl.href}&state=${encodeURIComponent(state)}`);
    await expectRefused(`${bed.b.url}${IDV_CALLBACK_PATH}`);

    expect((await bed.idv.status(sessionId)).body.reconciliationStatus).toBe('REDIRECTED');
    const back = await bed.idv.callback(callbackUrl);
    expect(back.location).toBe(portalRedirect(sessionId, { status: 'success' }));
  });

  it('a state naming the session of another attempt (validly sealed and signed) is refused, nothing changes', async () => {
    const walletA = await newWallet(bed);
    const walletB = await newWallet(bed);
    const sessionA = await unknownHolderSession(bed, walletA);
    const sessionB = await unknownHolderSession(bed, walletB);
    const startA = await initiated(bed, sessionA);
    const startB = await initiated(bed, sessionB);
    const callbackA = await signInAtProvider(bed, startA.authorizationUrl, bed.user('cross'));

    // A state made with the bridge's own keys, naming attempt A but session B; and attempt A with a state id it never
    // issued: what a forger holding the keys of neither could not make, and the binding check refuses anyway.
    const codec = new IdvStateCodec(bed.bed.t.platform.keys);
    const expiresAt = new Date(bed.clock.now().getTime() + 60_000);
    const crossed = await codec.encode({
      reconciliationId: startA.reconciliationSessionId,
      sessionId: sessionB,
      stateId: 'AAAAAAAAAAAAAAAAAAAAAA',
      expiresAt,
    });
    await expectRefused(withState(callbackA, crossed));
    const foreignId = await codec.encode({
      reconciliationId: startA.reconciliationSessionId,
      sessionId: sessionA,
      stateId: 'BBBBBBBBBBBBBBBBBBBBBB',
      expiresAt,
    });
    await expectRefused(withState(callbackA, foreignId));
    // B's genuine state with A's code: B is still waiting; A's code stays unusable for B (its PKCE verifier differs).
    const stateB = new URL(startB.authorizationUrl).searchParams.get('state')!;
    expect((await bed.idv.status(sessionA)).body.reconciliationStatus).toBe('REDIRECTED');
    expect((await bed.idv.status(sessionB)).body.reconciliationStatus).toBe('REDIRECTED');
    const spliced = await bed.idv.callback(withState(callbackA, stateB));
    expect(spliced.location).toBe(portalRedirect(sessionB, { status: 'error', reason: 'token_exchange_failed' }));
    expect(await institutionalIdentity(bed, bed.user('cross'))).toBeNull();

    // A itself is untouched and completes.
    expect((await bed.idv.callback(callbackA)).location).toBe(portalRedirect(sessionA, { status: 'success' }));
  });

  it('a new initiate replaces the open attempt: the old state is refused, the new one completes', async () => {
    const wallet = await newWallet(bed);
    const sessionId = await unknownHolderSession(bed, wallet);
    const first = await initiated(bed, sessionId);
    const firstCallback = await signInAtProvider(bed, first.authorizationUrl, bed.user('superseded'));
    const second = await initiated(bed, sessionId);
    expect(second.reconciliationSessionId).not.toBe(first.reconciliationSessionId);
    expect(new URL(second.authorizationUrl).searchParams.get('code_challenge')).not.toBe(
      new URL(first.authorizationUrl).searchParams.get('code_challenge'),
    );
    expect(new URL(second.authorizationUrl).searchParams.get('nonce')).not.toBe(
      new URL(first.authorizationUrl).searchParams.get('nonce'),
    );
    await expectRefused(firstCallback);
    expect((await bed.idv.status(sessionId)).body.reconciliationStatus).toBe('REDIRECTED');
    const back = await bed.idv.callback(await signInAtProvider(bed, second.authorizationUrl, bed.user('superseded')));
    expect(back.location).toBe(portalRedirect(sessionId, { status: 'success' }));
    const { events } = await bed.bed.t.platform.audit.query({ tenantId: 'demo', type: 'session_failed', limit: 500 });
    expect(
      events.some(
        (e) =>
          e.businessIds.reconciliationSessionId === first.reconciliationSessionId && e.details.reason === 'superseded',
      ),
    ).toBe(true);
  });

  it('an expired state: 400 and nothing changes at the callback; the status then reports the lapsed attempt', async () => {
    const wallet = await newWallet(bed);
    const sessionId = await unknownHolderSession(bed, wallet);
    const saved = bed.b.config.idv.stateTtlSeconds;
    bed.b.config.idv.stateTtlSeconds = 60;
    try {
      const start = await initiated(bed, sessionId);
      const callbackUrl = await signInAtProvider(bed, start.authorizationUrl, bed.user('late'));
      bed.clock.advance(61); // past the attempt's 60 s, within the session's 120 s
      await expectRefused(callbackUrl);
      expect(await institutionalIdentity(bed, bed.user('late'))).toBeNull();
      expect((await bed.idv.status(sessionId)).body).toEqual({
        reconciliationStatus: 'ERROR',
        errorMessage: IDV_FAILURES.attempt_expired,
      });
      // Still within the session's lifetime: a new attempt may start.
      expect((await bed.idv.initiate(sessionId)).statusCode).toBe(200);
    } finally {
      bed.b.config.idv.stateTtlSeconds = saved;
    }
  });

  it('the presentation session expired while the person was at the provider: ERROR session_expired, 410 after', async () => {
    expect(ATTEMPT_SECONDS).toBeGreaterThan(SESSION_SECONDS);
    const wallet = await newWallet(bed);
    const sessionId = await unknownHolderSession(bed, wallet);
    const start = await initiated(bed, sessionId);
    const callbackUrl = await signInAtProvider(bed, start.authorizationUrl, bed.user('expiredsession'));
    bed.clock.advance(SESSION_SECONDS + 1); // the state is still valid, the session is not
    const back = await bed.idv.callback(callbackUrl);
    expect(back.location).toBe(portalRedirect(sessionId, { status: 'error', reason: 'session_expired' }));
    expect((await bed.idv.status(sessionId)).body).toEqual({
      reconciliationStatus: 'ERROR',
      errorMessage: IDV_FAILURES.session_expired,
    });
    expect(await institutionalIdentity(bed, bed.user('expiredsession'))).toBeNull();
    expect(await bed.idv.initiate(sessionId)).toMatchObject({ statusCode: 410, body: { error: 'session_expired' } });
    expect((await bed.calls.complete(sessionId)).statusCode).toBe(410);
  });
});
