import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '@tessera/platform';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import {
  createTestIssuer,
  createTestWallet,
  issueCredentialToWallet,
  WalletError,
  type StatusListServer,
  type TestIssuer,
  type TestWallet,
} from '@tessera/test-wallet';
import { getVerifiedPresentation } from '../src/index.js';
import { buildBridgeApp, startTestBed, type BridgeApp, type BridgeTestBed } from './support/bridge-app.js';
import {
  bindKnownHolder,
  bridgeConfigFor,
  holderKeyOf,
  PERSON,
  sessionCalls,
  type SessionCalls,
} from './support/wallet-flow.js';

/**
 * Identity resolution after VERIFIED (000 §2.1 reconciliationPlanType, §2.3) and the redemption the token service
 * needs (flows.md step 7), end to end with the test wallet on both engines.
 */
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const OTHER_CHALLENGE = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

describe.each(DATABASE_KINDS)('resolution and redemption (%s)', (kind) => {
  let bed: BridgeTestBed;
  let issuer: TestIssuer;
  let statusServer: StatusListServer;
  let b: BridgeApp;
  let calls: SessionCalls;
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    bed = await startTestBed(kind);
    issuer = await createTestIssuer();
    statusServer = await issuer.statusListServer();
    b = await buildBridgeApp(bed.t.platform, {
      clock,
      listen: true,
      bridge: bridgeConfigFor(issuer, statusServer.url, {
        identityResolution: { autoMatchAttributes: ['SERVICE_ID'] },
      }),
    });
    calls = sessionCalls(b, bed.portalToken, bed.tokenServiceToken);
  });
  afterAll(async () => {
    await b?.close();
    await issuer?.close();
    await bed?.close();
  });
  // The clock is made when the file is collected and only moves by hand, while the wallet and the issuer sign with
  // the real time: set it to now before each test, or the later tests (the second engine's above all) see credentials
  // and key-binding JWTs issued further ahead of the bridge's clock than the 30 s of skew it tolerates.
  beforeEach(() => clock.set(new Date()));

  async function walletWith(claims: Record<string, unknown> = PERSON): Promise<TestWallet> {
    const wallet = await createTestWallet();
    await issueCredentialToWallet(issuer, wallet, { format: 'dc+sd-jwt', claims });
    return wallet;
  }

  async function verifiedSession(wallet: TestWallet, body: Record<string, unknown> = {}): Promise<string> {
    const { sessionId, requestUri } = await calls.create({ queryId: 'wallet-login', ...body });
    expect((await wallet.respond(requestUri)).status).toBe(200);
    return sessionId;
  }

  it('redeems a completed session once, for its own client and code_challenge, within the window', async () => {
    const wallet = await walletWith({ ...PERSON, service_id: 'redeem-1' });
    const userId = await bindKnownHolder(bed.t.platform, b.identities, await holderKeyOf(wallet.holderJwk), {
      ...PERSON,
      service_id: 'redeem-1',
    });
    const sessionId = await verifiedSession(wallet, {
      clientId: 'demo-rp',
      codeChallenge: CHALLENGE,
      oauthSessionId: 'portal-tx-9',
    });
    // Not COMPLETED yet: 409, naming the status, so that the token service can wait (extension).
    expect((await calls.redeem(sessionId, { clientId: 'demo-rp', codeChallenge: CHALLENGE })).body).toEqual({
      error: 'invalid_session_state',
      error_description: expect.any(String),
      status: 'VERIFIED',
    });
    const completed = await calls.complete(sessionId);
    expect(completed.statusCode).toBe(200);

    const wrongClient = await calls.redeem(sessionId, { clientId: 'other-rp', codeChallenge: CHALLENGE });
    expect(wrongClient.statusCode).toBe(409);
    expect(wrongClient.body).toEqual({
      error: 'invalid_session_state',
      error_description: 'The session is not bound to this authorization request.',
      status: 'COMPLETED',
    });
    expect((await calls.redeem(sessionId, { clientId: 'demo-rp', codeChallenge: OTHER_CHALLENGE })).statusCode).toBe(
      409,
    );

    const redeemed = await calls.redeem(sessionId, { clientId: 'demo-rp', codeChallenge: CHALLENGE });
    expect(redeemed.statusCode).toBe(200);
    expect(redeemed.body).toEqual({ sessionId, oauthSessionId: 'portal-tx-9', ...completed.body, userId });
    const twice = await calls.redeem(sessionId, { clientId: 'demo-rp', codeChallenge: CHALLENGE });
    expect(twice.statusCode).toBe(409);
    expect(twice.body.error_description).toMatch(/already redeemed/);
  });

  it('auto-matches one identity by the service claim, binds the wallet and completes with ATTRIBUTE_MATCH', async () => {
    const claims = { ...PERSON, service_id: 'auto-77' };
    const identityId = await bed.t.platform.db.withTenant(
      'demo',
      async (sql) =>
        (
          await b.identities.createIdentity(
            { tenantId: 'demo', sql },
            { claims, assurance: { acr: 'urn:test:loa', amr: ['federation'] } },
          )
        ).internalIdentityId,
    );
    const wallet = await walletWith(claims);
    const sessionId = await verifiedSession(wallet);
    expect((await calls.status(sessionId)).body).toMatchObject({
      status: 'VERIFIED',
      reconciliationPlanType: 'AUTO_MATCH_BY_ATTRIBUTE',
      idvRequired: false,
    });
    const done = await calls.complete(sessionId);
    expect(done).toMatchObject({
      statusCode: 200,
      body: { userId: identityId, claimSource: 'ATTRIBUTE_MATCH', isNewUser: false },
    });
    const holderKey = await holderKeyOf(wallet.holderJwk);
    expect(
      (
        await bed.t.platform.db.withTenant('demo', (sql) =>
          b.identities.findByHolderKey({ tenantId: 'demo', sql }, holderKey),
        )
      )?.internalIdentityId,
    ).toBe(identityId);
    // The next login of this wallet uses the binding.
    const next = await verifiedSession(wallet);
    expect((await calls.status(next)).body.reconciliationPlanType).toBe('USE_EXISTING_BINDING');
    const { events } = await bed.t.platform.audit.query({ tenantId: 'demo', type: 'binding_created' });
    expect(events.some((e) => e.businessIds.sessionId === sessionId)).toBe(true);
  });

  it('forceReconciliation sends even a known holder to IDV, and IDV completes the session (200, isNewUser)', async () => {
    const wallet = await walletWith({ ...PERSON, service_id: 'idv-5' });
    await bindKnownHolder(bed.t.platform, b.identities, await holderKeyOf(wallet.holderJwk), {
      ...PERSON,
      service_id: 'idv-5',
    });
    const sessionId = await verifiedSession(wallet, { forceReconciliation: true });
    expect((await calls.status(sessionId)).body).toMatchObject({
      reconciliationPlanType: 'RECONCILE_VIA_IDV',
      idvRequired: true,
      idvRequirementReason: expect.stringContaining('requested'),
    });
    expect((await calls.complete(sessionId)).statusCode).toBe(202);
    expect((await calls.complete(sessionId)).statusCode).toBe(202);

    // What issue 5's IDV callback does after the institutional login: identity + binding + completion, one unit.
    const result = await bed.t.platform.db.withTenant('demo', async (sql) => {
      const unit = { tenantId: 'demo', sql };
      const presentation = await getVerifiedPresentation(b.handle.services, unit, sessionId);
      expect(presentation.claims).toMatchObject({ service_id: 'idv-5' });
      const identity = await b.identities.createIdentity(unit, {
        claims: { service_id: 'idv-5', email: 'idv@uni.example' },
        assurance: { acr: 'urn:test:loa', amr: ['federation'] },
      });
      return b.handle.completeSessionAfterIdv(unit, sessionId, identity.internalIdentityId);
    });
    expect(result).toMatchObject({ isNewUser: true, claimSource: 'IDV_RECONCILIATION', amr: ['vp'] });
    const done = await calls.complete(sessionId);
    expect(done.statusCode).toBe(200);
    expect(done.body).toEqual(result);
    expect((await calls.status(sessionId)).body.status).toBe('COMPLETED');
  });

  it('refuses redemption after the window (410), without a binding (409), with the sessions scope (403), unknown (404)', async () => {
    const wallet = await walletWith({ ...PERSON, service_id: 'redeem-2' });
    await bindKnownHolder(bed.t.platform, b.identities, await holderKeyOf(wallet.holderJwk), {
      ...PERSON,
      service_id: 'redeem-2',
    });
    const late = await verifiedSession(wallet, { clientId: 'demo-rp', codeChallenge: CHALLENGE });
    expect((await calls.complete(late)).statusCode).toBe(200);
    clock.advance(121);
    const tooLate = await calls.redeem(late, { clientId: 'demo-rp', codeChallenge: CHALLENGE });
    expect(tooLate.statusCode).toBe(410);
    expect(tooLate.body.error).toBe('session_expired');

    const unbound = await verifiedSession(wallet);
    expect((await calls.complete(unbound)).statusCode).toBe(200);
    expect((await calls.redeem(unbound, { clientId: 'demo-rp', codeChallenge: CHALLENGE })).statusCode).toBe(409);

    const withPortalToken = await b.app.inject({
      method: 'POST',
      url: `/auth/oid4vp/sessions/${unbound}/redeem`,
      headers: { authorization: `Bearer ${bed.portalToken}` },
      payload: { clientId: 'demo-rp', codeChallenge: CHALLENGE },
    });
    expect(withPortalToken.statusCode).toBe(403);
    expect(
      (await calls.redeem('00000000-0000-4000-8000-000000000000', { clientId: 'demo-rp', codeChallenge: CHALLENGE }))
        .statusCode,
    ).toBe(404);
    expect((await calls.redeem(unbound, { clientId: 'demo-rp', codeChallenge: 'not-a-challenge' })).statusCode).toBe(
      400,
    );
  });

  it('an expired session answers 410 to the portal and to the wallet', async () => {
    const wallet = await walletWith();
    const { sessionId, requestUri } = await calls.create();
    clock.advance(301);
    await expect(wallet.respond(requestUri)).rejects.toThrow(WalletError);
    expect((await calls.status(sessionId)).statusCode).toBe(410);
  });
});

describe.each(['x509_hash', 'decentralized_identifier'] as const)(
  'client identifier prefix %s with the test wallet (pglite)',
  (prefix) => {
    let bed: BridgeTestBed;
    let issuer: TestIssuer;
    let b: BridgeApp;

    beforeAll(async () => {
      bed = await startTestBed('pglite');
      issuer = await createTestIssuer();
      const statusServer = await issuer.statusListServer();
      b = await buildBridgeApp(bed.t.platform, {
        listen: true,
        bridge: bridgeConfigFor(issuer, statusServer.url, { clientIdPrefix: prefix }),
      });
    });
    afterAll(async () => {
      await b?.close();
      await issuer?.close();
      await bed?.close();
    });

    it('the wallet accepts the request and the presentation is verified', async () => {
      const calls = sessionCalls(b, bed.portalToken, bed.tokenServiceToken);
      const wallet = await createTestWallet();
      await issueCredentialToWallet(issuer, wallet, { format: 'dc+sd-jwt', claims: PERSON });
      const { sessionId, requestUri } = await calls.create();
      const answer = await wallet.respond(requestUri);
      expect(answer.request.clientIdPrefix).toBe(prefix);
      expect(answer.request.clientId.startsWith(`${prefix}:`)).toBe(true);
      expect(answer.status).toBe(200);
      expect((await calls.status(sessionId)).body.status).toBe('VERIFIED');
    });
  },
);
