import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import {
  createTestIssuer,
  createTestWallet,
  issueCredentialToWallet,
  type CredentialFormat,
  type IssuedCredential,
  type StatusListServer,
  type TestIssuer,
  type TestWallet,
} from '@tessera/test-wallet';
import { buildBridgeApp, startTestBed, type BridgeApp, type BridgeTestBed } from './support/bridge-app.js';
import {
  bindKnownHolder,
  bridgeConfigFor,
  holderKeyOf,
  PERSON,
  sessionCalls,
  W3C_QUERY_ID,
  type SessionCalls,
} from './support/wallet-flow.js';

/**
 * End to end with the project's test wallet (a standards-following OpenID4VP 1.0 wallet with hostile options), over
 * real HTTP on localhost, for both credential formats and both response modes, on both engines: a known holder
 * completes with 200 and claims, an unknown holder with 202; every hostile response is refused and recorded naming
 * the check that caught it, and the session stays open for the valid response that follows.
 */
const MODES = ['direct_post.jwt', 'direct_post'] as const;
const FORMATS: CredentialFormat[] = ['dc+sd-jwt', 'jwt_vc_json'];
const queryFor = (format: CredentialFormat) => (format === 'dc+sd-jwt' ? 'wallet-login' : W3C_QUERY_ID);
const ACR = 'urn:tessera:oid4vp:vp';

describe.each(DATABASE_KINDS)('end to end with the test wallet (%s)', (kind) => {
  let bed: BridgeTestBed;
  let issuer: TestIssuer;
  let foreignIssuer: TestIssuer;
  let statusServer: StatusListServer;
  const apps = new Map<string, { b: BridgeApp; calls: SessionCalls }>();
  let known: TestWallet;
  let unknown: TestWallet;
  let knownIdentityId: string;
  let revokedHolder: TestWallet;
  let revoked: { sd: IssuedCredential; w3c: IssuedCredential };

  beforeAll(async () => {
    bed = await startTestBed(kind);
    issuer = await createTestIssuer();
    statusServer = await issuer.statusListServer();
    foreignIssuer = await createTestIssuer({ statusBaseUrl: statusServer.url });
    for (const mode of MODES) {
      const b = await buildBridgeApp(bed.t.platform, {
        listen: true,
        bridge: bridgeConfigFor(issuer, statusServer.url, { responseMode: mode }),
      });
      apps.set(mode, { b, calls: sessionCalls(b, bed.portalToken, bed.tokenServiceToken) });
    }
    known = await createTestWallet();
    unknown = await createTestWallet();
    for (const wallet of [known, unknown]) {
      for (const format of FORMATS) await issueCredentialToWallet(issuer, wallet, { format, claims: PERSON });
    }
    // Revoked before any list is fetched: a fetched list is cached for its ttl (Token Status List §8.3).
    revokedHolder = await createTestWallet();
    revoked = {
      sd: await issueCredentialToWallet(issuer, revokedHolder, { format: 'dc+sd-jwt', claims: PERSON }),
      w3c: await issueCredentialToWallet(issuer, revokedHolder, { format: 'jwt_vc_json', claims: PERSON }),
    };
    await issuer.revoke('dc+sd-jwt', revoked.sd.statusIndex!);
    await issuer.revoke('jwt_vc_json', revoked.w3c.statusIndex!);
    const { b } = apps.get('direct_post.jwt')!;
    knownIdentityId = await bindKnownHolder(bed.t.platform, b.identities, await holderKeyOf(known.holderJwk));
  });

  afterAll(async () => {
    for (const { b } of apps.values()) await b.close();
    await issuer?.close();
    await foreignIssuer?.close();
    await bed?.close();
  });

  describe.each(MODES)('%s', (mode) => {
    it.each(FORMATS)(
      '%s: a known holder completes with 200, claims, acr and amr; the session is COMPLETED',
      async (format) => {
        const { calls } = apps.get(mode)!;
        const { sessionId, requestUri } = await calls.create({
          queryId: queryFor(format),
          oauthSessionId: `tx-${mode}-${format}`,
        });
        const answer = await known.respond(requestUri, { formats: [format] });
        expect(answer.status).toBe(200);
        expect(answer.request.responseMode).toBe(mode);
        expect((await calls.status(sessionId)).body).toEqual({
          sessionId,
          status: 'VERIFIED',
          idvRequired: false,
          idvRequirementReason: null,
          reconciliationPlanType: 'USE_EXISTING_BINDING',
        });
        const done = await calls.complete(sessionId);
        expect(done.statusCode).toBe(200);
        expect(done.body).toEqual({
          userId: knownIdentityId,
          claims: expect.objectContaining(PERSON),
          isNewUser: false,
          authenticatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          acr: ACR,
          amr: ['vp'],
          claimSource: 'CANONICAL_BINDING',
        });
        expect((await calls.status(sessionId)).body.status).toBe('COMPLETED');
        // 000 §4.1: complete on a COMPLETED session answers 200 again with the same result.
        expect(await calls.complete(sessionId)).toEqual(done);
      },
    );

    it.each(FORMATS)(
      '%s: an unknown holder gets 202 idvRequired; the session moves to IDV_REQUIRED',
      async (format) => {
        const { calls } = apps.get(mode)!;
        const { sessionId, requestUri } = await calls.create({ queryId: queryFor(format) });
        expect((await unknown.respond(requestUri, { formats: [format] })).status).toBe(200);
        expect((await calls.status(sessionId)).body).toEqual({
          sessionId,
          status: 'VERIFIED',
          idvRequired: true,
          idvRequirementReason: expect.any(String),
          reconciliationPlanType: 'RECONCILE_VIA_IDV',
        });
        const done = await calls.complete(sessionId);
        expect(done.statusCode).toBe(202);
        expect(done.body).toEqual({
          idvRequired: true,
          idvMethod: 'oidc',
          idvSteps: expect.arrayContaining([expect.any(String)]),
        });
        expect((await calls.status(sessionId)).body.status).toBe('IDV_REQUIRED');
      },
    );

    const hostile: [string, CredentialFormat, string, Record<string, unknown>][] = [
      ['wrong nonce', 'dc+sd-jwt', 'nonce', { wrongNonce: true }],
      ['wrong audience', 'dc+sd-jwt', 'audience', { wrongAudience: true }],
      ['tampered disclosure', 'dc+sd-jwt', 'disclosures', { tamperDisclosure: true }],
      ['unreferenced disclosure', 'dc+sd-jwt', 'disclosures', { extraUnreferencedDisclosure: true }],
      ['missing required claim', 'dc+sd-jwt', 'dcql', { dropClaim: 'eduperson_principal_name' }],
      ['unknown credential query id', 'dc+sd-jwt', 'dcql', { credentialQueryId: 'not-asked' }],
      ['no key binding', 'dc+sd-jwt', 'holder_binding', { omitKeyBinding: true }],
      ['alg none', 'dc+sd-jwt', 'signature', { stripIssuerSignature: true }],
      ['foreign state', 'dc+sd-jwt', 'response', { overrideState: 'not-the-state' }],
      ['wrong nonce (VP)', 'jwt_vc_json', 'nonce', { wrongNonce: true }],
      ['wrong audience (VP)', 'jwt_vc_json', 'audience', { wrongAudience: true }],
      ['tampered credential', 'jwt_vc_json', 'signature', { tamperDisclosure: true }],
    ];
    it.each(hostile)(
      '%s (%s) is refused naming the check %s; the valid response after it still signs in',
      async (_name, format, check, options) => {
        const { calls } = apps.get(mode)!;
        const { sessionId, requestUri } = await calls.create({ queryId: queryFor(format) });
        const answer = await known.respond(requestUri, { formats: [format], ...options });
        expect(answer.status).toBe(400);
        expect((await calls.status(sessionId)).body).toMatchObject({
          status: 'INTERACTION_STARTED',
          rejectedResponses: 1,
          lastRejection: { check },
        });
        expect((await calls.complete(sessionId)).statusCode).toBe(409);
        expect((await known.respond(requestUri, { formats: [format] })).status).toBe(200);
        expect((await calls.status(sessionId)).body).toMatchObject({ status: 'VERIFIED', rejectedResponses: 1 });
        expect((await calls.complete(sessionId)).body).toMatchObject({ userId: knownIdentityId });
      },
    );

    it('refuses a revoked credential (status), and an issuer outside the trusted list (issuer_trust)', async () => {
      const { calls } = apps.get(mode)!;
      const first = await calls.create();
      expect((await revokedHolder.respond(first.requestUri, { useCredential: revoked.sd })).status).toBe(400);
      expect((await calls.status(first.sessionId)).body).toMatchObject({
        status: 'INTERACTION_STARTED',
        lastRejection: { check: 'status', reason: expect.stringContaining('revoked') },
      });

      const third = await calls.create({ queryId: W3C_QUERY_ID });
      expect((await revokedHolder.respond(third.requestUri, { useCredential: revoked.w3c })).status).toBe(400);
      expect((await calls.status(third.sessionId)).body).toMatchObject({
        status: 'INTERACTION_STARTED',
        lastRejection: { check: 'status', reason: expect.stringContaining('revoked') },
      });

      const wallet = await createTestWallet();
      const foreign = await issueCredentialToWallet(foreignIssuer, wallet, { format: 'dc+sd-jwt', claims: PERSON });
      const second = await calls.create();
      expect((await wallet.respond(second.requestUri, { useCredential: foreign })).status).toBe(400);
      expect((await calls.status(second.sessionId)).body).toMatchObject({
        status: 'INTERACTION_STARTED',
        lastRejection: { check: 'issuer_trust' },
      });
    });

    it('refuses a second POST to the same response endpoint (400, no state change) and a replay into another session', async () => {
      const { calls } = apps.get(mode)!;
      const first = await calls.create();
      expect((await known.respond(first.requestUri, { formats: ['dc+sd-jwt'] })).status).toBe(200);
      const captured = known.captureLastResponse()!;
      const again = await known.resubmitLastResponse();
      expect(again.status).toBe(400);
      expect((await calls.status(first.sessionId)).body.status).toBe('VERIFIED');

      const second = await calls.create();
      expect((await known.respond(second.requestUri, { replayFrom: captured })).status).toBe(400);
      expect((await calls.status(second.sessionId)).body).toMatchObject({
        status: 'INTERACTION_STARTED',
        lastRejection: { check: 'replay' },
      });
    });
  });

  it('audits refused responses as response_rejected, then session_failed at the bound, with no personal data', async () => {
    const { calls } = apps.get('direct_post.jwt')!;
    const { sessionId, requestUri } = await calls.create({ queryId: 'wallet-login', oauthSessionId: 'tx-audited' });
    await known.respond(requestUri, { formats: ['dc+sd-jwt'], wrongNonce: true });
    await known.respond(requestUri, { formats: ['dc+sd-jwt'], wrongAudience: true });
    await known.respond(requestUri, { formats: ['dc+sd-jwt'], wrongNonce: true });
    const rejected = (await bed.t.platform.audit.query({ tenantId: 'demo', type: 'response_rejected' })).events.filter(
      (e) => e.businessIds.sessionId === sessionId,
    );
    expect(rejected.map((e) => e.details.check).sort()).toEqual(['audience', 'nonce']);
    const { events } = await bed.t.platform.audit.query({ tenantId: 'demo', type: 'session_failed' });
    const event = events.find((e) => e.businessIds.sessionId === sessionId)!;
    expect(event).toMatchObject({ correlationId: 'tx-audited', result: 'failure', details: { check: 'nonce' } });
    expect((await calls.status(sessionId)).body).toMatchObject({ status: 'ERROR', failure: { check: 'nonce' } });
    const text = JSON.stringify([event, ...rejected]);
    for (const secret of Object.values(PERSON)) expect(text).not.toContain(secret);
    expect(bed.t.logs.text).not.toContain(PERSON.eduperson_principal_name);
    expect(bed.t.logs.text).not.toMatch(/vp_token|"nonce":/);
  });
});
