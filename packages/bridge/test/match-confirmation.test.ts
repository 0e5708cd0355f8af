import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '@tessera/platform';
import { DATABASE_KINDS, refuseAuditStaging } from '@tessera/platform/testing';
import {
  createTestIssuer,
  createTestWallet,
  issueCredentialToWallet,
  type StatusListServer,
  type TestIssuer,
  type TestWallet,
} from '@tessera/test-wallet';
import { bearer, buildBridgeApp, startTestBed, type BridgeApp, type BridgeTestBed } from './support/bridge-app.js';
import { bridgeConfigFor, holderKeyOf, PERSON, sessionCalls, type SessionCalls } from './support/wallet-flow.js';

/**
 * Match confirmation (issue 14 §11; 000 §4.2 idv/submit with selectedMatchId): attribute matching that is not certain
 * puts the session at MATCH_CONFIRMATION_REQUIRED with masked candidates; submit confirms one (bound, COMPLETED) or
 * declines (IDV_REQUIRED). End to end over HTTP with the test wallet, on both engines.
 */
describe.each(DATABASE_KINDS)('match confirmation (%s)', (kind) => {
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
        identityResolution: {
          autoMatchAttributes: ['SERVICE_ID', 'EPPN'],
          matchConfirmation: { institutionName: 'University of Examples' },
        },
      }),
    });
    calls = sessionCalls(b, bed.portalToken, bed.tokenServiceToken);
  });
  afterAll(async () => {
    await b?.close();
    await issuer?.close();
    await bed?.close();
  });
  beforeEach(() => clock.set(new Date()));

  const unit = <T>(
    fn: (u: { tenantId: string; sql: Parameters<Parameters<typeof bed.t.platform.db.withTenant>[1]>[0] }) => Promise<T>,
  ) => bed.t.platform.db.withTenant('demo', (sql) => fn({ tenantId: 'demo', sql }));

  async function identityWith(claims: Record<string, unknown>, federation?: string): Promise<string> {
    return unit(async (u) => {
      const created = await b.identities.createIdentity(u, {
        claims,
        assurance: { acr: 'urn:test:loa', amr: ['federation'] },
      });
      if (federation)
        await b.identities.bindFederation(u, created.internalIdentityId, 'https://idp.example', federation);
      return created.internalIdentityId;
    });
  }

  async function walletWith(claims: Record<string, unknown>): Promise<TestWallet> {
    const wallet = await createTestWallet();
    await issueCredentialToWallet(issuer, wallet, { format: 'dc+sd-jwt', claims });
    return wallet;
  }

  async function verifiedSession(wallet: TestWallet): Promise<string> {
    const { sessionId, requestUri } = await calls.create({ queryId: 'wallet-login', oauthSessionId: 'portal-tx-mc' });
    expect((await wallet.respond(requestUri)).status).toBe(200);
    return sessionId;
  }

  async function submit(sessionId: string, body: unknown) {
    const res = await b.app.inject({
      method: 'POST',
      url: `/auth/oid4vp/sessions/${sessionId}/idv/submit`,
      headers: bearer(bed.portalToken),
      payload: body as Record<string, unknown>,
    });
    return { statusCode: res.statusCode, body: res.json() as Record<string, unknown> };
  }

  const boundIdentityOf = async (wallet: TestWallet) => {
    const key = await holderKeyOf(wallet.holderJwk);
    return (await unit((u) => b.identities.findByHolderKey(u, key)))?.internalIdentityId ?? null;
  };

  async function candidatesOf(sessionId: string) {
    const status = await calls.status(sessionId);
    expect(status.body.status).toBe('MATCH_CONFIRMATION_REQUIRED');
    return status.body.matchCandidates as { matchId: string; matchedOn: string[]; claims: Record<string, string> }[];
  }

  it('several matches: the status carries masked candidates, and the chosen one is bound and completes', async () => {
    const person = { ...PERSON, service_id: 'mc-several', eduperson_principal_name: 'grace.h@uni.example' };
    // One identity found by the service claim (it lacks an eppn), another by the eppn (it lacks a service id).
    const byService = await identityWith({ service_id: 'mc-several', email: 'g.hopper@uni.example' }, 'sub-mc-1');
    const byEppn = await identityWith({ eduperson_principal_name: 'grace.h@uni.example', family_name: 'Hopper' });
    const wallet = await walletWith(person);
    const sessionId = await verifiedSession(wallet);

    expect((await calls.status(sessionId)).body).toMatchObject({
      status: 'VERIFIED',
      reconciliationPlanType: 'CONFIRM_ATTRIBUTE_MATCH',
      idvRequired: false,
    });
    const asked = await calls.complete(sessionId);
    expect(asked).toMatchObject({ statusCode: 202, body: { idvRequired: true, matchConfirmationRequired: true } });
    expect((await calls.complete(sessionId)).statusCode).toBe(202);

    const status = await calls.status(sessionId);
    expect(status.body).toMatchObject({
      status: 'MATCH_CONFIRMATION_REQUIRED',
      reconciliationPlanType: 'CONFIRM_ATTRIBUTE_MATCH',
    });
    const candidates = await candidatesOf(sessionId);
    expect(candidates).toHaveLength(2);
    expect(candidates).toEqual(
      expect.arrayContaining([
        {
          matchId: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
          matchedOn: ['SERVICE_ID'],
          claims: { service_id: '***al', email: 'g***@uni.example' },
          institution: 'University of Examples',
        },
        {
          matchId: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
          matchedOn: ['EPPN'],
          claims: { eduperson_principal_name: 'g***@uni.example' },
          institution: null,
        },
      ]),
    );
    // No identity id and no unmasked value leaves the bridge.
    const text = JSON.stringify(status.body);
    for (const secret of [byService, byEppn, 'mc-several', 'grace.h@', 'g.hopper@', 'Hopper'])
      expect(text).not.toContain(secret);

    const chosen = candidates.find((c) => c.matchedOn.includes('EPPN'))!;
    expect(await submit(sessionId, { confirmed: true })).toMatchObject({
      statusCode: 400,
      body: { error: 'invalid_request', error_description: expect.stringContaining('selectedMatchId') },
    });
    expect(await submit(sessionId, { confirmed: true, selectedMatchId: 'AAAAAAAAAAAAAAAAAAAAAA' })).toMatchObject({
      statusCode: 400,
      body: { error: 'invalid_request' },
    });
    expect(await submit(sessionId, { confirmed: true, selectedMatchId: byEppn })).toMatchObject({ statusCode: 400 });
    expect(await boundIdentityOf(wallet)).toBeNull();

    const confirmed = await submit(sessionId, { confirmed: true, selectedMatchId: chosen.matchId });
    expect(confirmed).toEqual({
      statusCode: 200,
      body: { reconciliationStatus: 'COMPLETED', message: expect.any(String) },
    });
    const done = await calls.complete(sessionId);
    expect(done).toMatchObject({
      statusCode: 200,
      body: { userId: byEppn, claimSource: 'ATTRIBUTE_MATCH', isNewUser: false, amr: ['vp'] },
    });
    // One person, one set of claims: the identity's claims win, the wallet fills what it lacks (issue 14 §1).
    expect((done.body.claims as Record<string, unknown>).family_name).toBe('Hopper');
    expect(await boundIdentityOf(wallet)).toBe(byEppn);
    expect((await calls.status(sessionId)).body).toMatchObject({ status: 'COMPLETED' });
    expect((await calls.status(sessionId)).body.matchCandidates).toBeUndefined();

    // A second submit after completion is refused, either way.
    for (const again of [{ confirmed: true, selectedMatchId: chosen.matchId }, { confirmed: false }])
      expect(await submit(sessionId, again)).toMatchObject({
        statusCode: 409,
        body: { error: 'invalid_session_state' },
      });

    // The next login of this wallet uses the binding.
    expect((await calls.status(await verifiedSession(wallet))).body.reconciliationPlanType).toBe(
      'USE_EXISTING_BINDING',
    );

    // Audit: identifiers only.
    const types = ['match_confirmation_required', 'binding_created', 'match_confirmed', 'session_completed'];
    const mine = (
      await Promise.all(types.map((type) => bed.t.platform.audit.query({ tenantId: 'demo', type, limit: 500 })))
    )
      .flatMap((page) => page.events)
      .filter((e) => e.businessIds.sessionId === sessionId);
    expect(mine.map((e) => e.type).sort()).toEqual([...types].sort());
    expect(mine.every((e) => e.correlationId === 'portal-tx-mc')).toBe(true);
    expect(mine.find((e) => e.type === 'match_confirmed')?.details).toEqual({
      identityId: byEppn,
      matchId: chosen.matchId,
    });
    expect(mine.find((e) => e.type === 'match_confirmation_required')?.details).toMatchObject({ candidates: 2 });
    const auditText = JSON.stringify(mine);
    for (const secret of ['mc-several', 'grace.h@', 'g.hopper@', 'Hopper']) expect(auditText).not.toContain(secret);
  });

  it('the ask, the confirmation and the decline commit with their events; a refused event changes nothing', async () => {
    const db = bed.t.platform.db;
    const eventsOf = async (sessionId: string) =>
      (await bed.t.platform.audit.query({ tenantId: 'demo', limit: 1000 })).events
        .filter((e) => e.businessIds.sessionId === sessionId)
        .map((e) => e.type);
    const identityId = await identityWith({ service_id: 'mc-atomic' });
    const wallet = await walletWith({ ...PERSON, service_id: 'mc-atomic', eduperson_principal_name: 'at@uni.example' });
    const sessionId = await verifiedSession(wallet);

    let lift = await refuseAuditStaging(db, { type: 'match_confirmation_required' });
    expect((await calls.complete(sessionId)).statusCode).toBe(503);
    await lift();
    expect((await calls.status(sessionId)).body.status).toBe('VERIFIED');
    expect((await calls.complete(sessionId)).body.matchConfirmationRequired).toBe(true);

    lift = await refuseAuditStaging(db, { type: 'match_confirmed' });
    expect((await submit(sessionId, { confirmed: true })).statusCode).toBe(503);
    await lift();
    expect((await calls.status(sessionId)).body.status).toBe('MATCH_CONFIRMATION_REQUIRED');
    expect(await boundIdentityOf(wallet)).toBeNull();
    expect((await submit(sessionId, { confirmed: true })).body.reconciliationStatus).toBe('COMPLETED');
    expect(await boundIdentityOf(wallet)).toBe(identityId);
    expect(await eventsOf(sessionId)).toEqual(
      expect.arrayContaining([
        'match_confirmation_required',
        'binding_created',
        'match_confirmed',
        'session_completed',
      ]),
    );

    // The decline: refused, the session still awaits the holder's answer; then IDV_REQUIRED with match_declined.
    await identityWith({ service_id: 'mc-atomic-2' });
    const other = await walletWith({
      ...PERSON,
      service_id: 'mc-atomic-2',
      eduperson_principal_name: 'a2@uni.example',
    });
    const declined = await verifiedSession(other);
    expect((await calls.complete(declined)).body.matchConfirmationRequired).toBe(true);
    lift = await refuseAuditStaging(db, { type: 'match_declined' });
    expect((await submit(declined, { confirmed: false })).statusCode).toBe(503);
    await lift();
    expect((await calls.status(declined)).body.status).toBe('MATCH_CONFIRMATION_REQUIRED');
    expect((await submit(declined, { confirmed: false })).body.reconciliationStatus).toBe('ERROR');
    expect((await calls.status(declined)).body.status).toBe('IDV_REQUIRED');
    expect(await eventsOf(declined)).toContain('match_declined');
  });

  it('one uncertain match: confirmed without selectedMatchId binds it', async () => {
    const identityId = await identityWith({ service_id: 'mc-single' });
    const wallet = await walletWith({
      ...PERSON,
      service_id: 'mc-single',
      eduperson_principal_name: 'single@uni.example',
    });
    const sessionId = await verifiedSession(wallet);
    expect((await calls.complete(sessionId)).body.matchConfirmationRequired).toBe(true);
    const [only] = await candidatesOf(sessionId);
    expect(only).toMatchObject({ matchedOn: ['SERVICE_ID'], claims: { service_id: '***le' }, institution: null });
    expect((await submit(sessionId, { confirmed: true })).body.reconciliationStatus).toBe('COMPLETED');
    expect((await calls.complete(sessionId)).body).toMatchObject({
      userId: identityId,
      claimSource: 'ATTRIBUTE_MATCH',
    });
  });

  it('declined: the session falls back to IDV, nothing is bound, and a second submit finds nothing to answer', async () => {
    await identityWith({ service_id: 'mc-decline' });
    await identityWith({ service_id: 'mc-decline' });
    const wallet = await walletWith({ ...PERSON, service_id: 'mc-decline', eduperson_principal_name: 'd@uni.example' });
    const sessionId = await verifiedSession(wallet);
    await calls.complete(sessionId);
    expect(await candidatesOf(sessionId)).toHaveLength(2);

    const declined = await submit(sessionId, { confirmed: false });
    expect(declined).toEqual({ statusCode: 200, body: { reconciliationStatus: 'ERROR', message: expect.any(String) } });
    expect((await calls.status(sessionId)).body).toEqual({
      sessionId,
      status: 'IDV_REQUIRED',
      idvRequired: true,
      idvRequirementReason: expect.stringContaining('did not confirm'),
      reconciliationPlanType: 'RECONCILE_VIA_IDV',
    });
    const complete = await calls.complete(sessionId);
    expect(complete.statusCode).toBe(202);
    expect(complete.body.matchConfirmationRequired).toBeUndefined();
    expect(await boundIdentityOf(wallet)).toBeNull();
    // Nothing left to confirm: a submit now speaks of the IDV attempt, of which there is none yet.
    expect(await submit(sessionId, { confirmed: true })).toMatchObject({ statusCode: 409 });
    const { events } = await bed.t.platform.audit.query({ tenantId: 'demo', type: 'match_declined' });
    expect(events.find((e) => e.businessIds.sessionId === sessionId)?.details).toEqual({
      candidates: 2,
      outcome: 'declined',
    });
  });

  it('match ids are per session: the same identity has another id in another session, and one session refuses the other’s', async () => {
    await identityWith({ service_id: 'mc-cross' });
    await identityWith({ service_id: 'mc-cross' });
    const claims = { ...PERSON, service_id: 'mc-cross', eduperson_principal_name: 'cross@uni.example' };
    const first = await verifiedSession(await walletWith(claims));
    const second = await verifiedSession(await walletWith(claims));
    await calls.complete(first);
    await calls.complete(second);
    const firstIds = (await candidatesOf(first)).map((c) => c.matchId);
    const secondIds = (await candidatesOf(second)).map((c) => c.matchId);
    expect(firstIds.filter((id) => secondIds.includes(id))).toEqual([]);
    for (const id of firstIds)
      expect(await submit(second, { confirmed: true, selectedMatchId: id })).toMatchObject({
        statusCode: 400,
        body: { error: 'invalid_request' },
      });
    expect((await calls.status(second)).body.status).toBe('MATCH_CONFIRMATION_REQUIRED');
  });

  it('refuses a malformed body (400), an expired session (410), an unknown session (404), and before the ask (409)', async () => {
    await identityWith({ service_id: 'mc-bad' });
    const wallet = await walletWith({ ...PERSON, service_id: 'mc-bad', eduperson_principal_name: 'bad@uni.example' });
    const sessionId = await verifiedSession(wallet);
    // Still VERIFIED: the holder has not been asked yet.
    expect(await submit(sessionId, { confirmed: true })).toMatchObject({ statusCode: 409 });
    await calls.complete(sessionId);
    for (const body of [
      {},
      { confirmed: 'yes' },
      { confirmed: true, selectedMatchId: '' },
      { confirmed: true, selectedMatchId: 'a b' },
      { confirmed: true, selectedMatchId: 'x'.repeat(129) },
      { confirmed: true, extra: 1 },
    ])
      expect((await submit(sessionId, body)).statusCode, JSON.stringify(body)).toBe(400);
    expect((await submit('00000000-0000-4000-8000-000000000000', { confirmed: true })).statusCode).toBe(404);
    clock.advance(301);
    expect(await submit(sessionId, { confirmed: true })).toMatchObject({
      statusCode: 410,
      body: { error: 'session_expired' },
    });
    expect(await boundIdentityOf(wallet)).toBeNull();
  });
});
