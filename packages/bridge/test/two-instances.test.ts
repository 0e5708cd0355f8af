import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatform, loadConfig, PlatformConfigSchema, type Platform } from '@tessera/platform';
import { LogCapture } from '@tessera/platform/testing';
import {
  createTestIssuer,
  createTestWallet,
  issueCredentialToWallet,
  type TestIssuer,
  type TestWallet,
} from '@tessera/test-wallet';
import {
  BRIDGE_MIGRATIONS,
  buildBridgeApp,
  startTestBed,
  type BridgeApp,
  type BridgeTestBed,
} from './support/bridge-app.js';
import { startRouter, type Router } from './support/router.js';
import { bindKnownHolder, bridgeConfigFor, holderKeyOf, PERSON, sessionCalls } from './support/wallet-flow.js';

/**
 * No session state lives in one process (000 §1; README "Production": replicas share everything through
 * PostgreSQL): two instances, each its own platform (key cache, status-list cache, memory) on one database, behind
 * one public URL. A session created on A is fetched and answered by the wallet on B, and completed on A.
 */
describe('two instances on one PostgreSQL database', () => {
  let bed: BridgeTestBed;
  let second: Platform;
  let issuer: TestIssuer;
  let a: BridgeApp;
  let b: BridgeApp;
  let router: Router;
  let wallet: TestWallet;
  let userId: string;

  beforeAll(async () => {
    bed = await startTestBed('postgres');
    const config = loadConfig(PlatformConfigSchema, {
      env: {},
      overrides: {
        profile: 'test',
        database: { url: bed.t.databaseUrl },
        keys: { masterKey: bed.t.platform.config.keys.masterKey },
        tenancy: { seedDemoTenant: true },
        auth: bed.t.platform.config.auth,
      },
    });
    second = await createPlatform(config, { migrations: BRIDGE_MIGRATIONS, logDestination: new LogCapture() });
    issuer = await createTestIssuer();
    const statusServer = await issuer.statusListServer();
    const bridge = bridgeConfigFor(issuer, statusServer.url, { clientIdPrefix: 'x509_hash' });
    a = await buildBridgeApp(bed.t.platform, { listen: true, bridge });
    b = await buildBridgeApp(second, { listen: true, bridge });
    // The wallet reaches "the bridge" at one URL; requests and responses land on B, everything else on A.
    router = await startRouter({ a: a.url!, b: b.url! }, (req) =>
      req.url?.startsWith('/auth/oid4vp/requests/') || req.url?.startsWith('/auth/oid4vp/responses/') ? 'b' : 'a',
    );
    a.config.publicBaseUrl = router.url;
    b.config.publicBaseUrl = router.url;
    wallet = await createTestWallet();
    await issueCredentialToWallet(issuer, wallet, { format: 'dc+sd-jwt', claims: PERSON });
    userId = await bindKnownHolder(bed.t.platform, a.identities, await holderKeyOf(wallet.holderJwk));
  });

  afterAll(async () => {
    await router?.close();
    await a?.close();
    await b?.close();
    await second?.close();
    await issuer?.close();
    await bed?.close();
  });

  it('create on A, the wallet fetches and answers on B, status on B, complete on A', async () => {
    const onA = sessionCalls(a, bed.portalToken, bed.tokenServiceToken);
    const onB = sessionCalls(b, bed.portalToken, bed.tokenServiceToken);
    const { sessionId, requestUri } = await onA.create({
      queryId: 'wallet-login',
      clientId: 'demo-rp',
      codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    });
    const answer = await wallet.respond(requestUri);
    expect(answer.status).toBe(200);
    expect(router.served.filter((r) => r.target === 'b').map((r) => r.method)).toEqual(['GET', 'POST']);
    expect((await onB.status(sessionId)).body).toMatchObject({
      status: 'VERIFIED',
      reconciliationPlanType: 'USE_EXISTING_BINDING',
    });
    const done = await onA.complete(sessionId);
    expect(done).toMatchObject({ statusCode: 200, body: { userId, claimSource: 'CANONICAL_BINDING' } });
    // The redemption may come through either instance; it succeeds once.
    expect(
      (
        await onB.redeem(sessionId, {
          clientId: 'demo-rp',
          codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (
        await onA.redeem(sessionId, {
          clientId: 'demo-rp',
          codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        })
      ).statusCode,
    ).toBe(409);
  });

  it('both instances present the same x509_hash client id (one shared development certificate)', async () => {
    const fromA = await sessionCalls(a, bed.portalToken, bed.tokenServiceToken).create();
    const fromB = await sessionCalls(b, bed.portalToken, bed.tokenServiceToken).create();
    const clientId = (link: string) => new URL(link).searchParams.get('client_id');
    expect(clientId(fromA.requestUri)).toMatch(/^x509_hash:[A-Za-z0-9_-]{43}$/);
    expect(clientId(fromB.requestUri)).toBe(clientId(fromA.requestUri));
    // A replay of a response accepted through B is refused by A's instance too (the index is shared).
    const first = await sessionCalls(a, bed.portalToken, bed.tokenServiceToken).create();
    expect((await wallet.respond(first.requestUri)).status).toBe(200);
    const captured = wallet.captureLastResponse()!;
    const replayTarget = await sessionCalls(b, bed.portalToken, bed.tokenServiceToken).create();
    expect((await wallet.respond(replayTarget.requestUri, { replayFrom: captured })).status).toBe(400);
    expect(
      (await sessionCalls(a, bed.portalToken, bed.tokenServiceToken).status(replayTarget.sessionId)).body,
    ).toMatchObject({ status: 'INTERACTION_STARTED', rejectedResponses: 1, lastRejection: { check: 'replay' } });
  });
});
