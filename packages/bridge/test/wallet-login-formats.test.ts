import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import {
  createTestIssuer,
  createTestWallet,
  DEMO_VC_TYPE,
  issueCredentialToWallet,
  type StatusListServer,
  type TestIssuer,
  type TestWallet,
} from '@tessera/test-wallet';
import { DEVELOPMENT_W3C_TYPE } from '../src/domain/queries.js';
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
 * The wallet-login query with an alternative credential (DCQL credential_sets, OID4VP §6.2), as the development
 * profile configures it: a wallet holding only the SD-JWT VC, or only the W3C VC, signs in with the same query.
 */
describe.each(DATABASE_KINDS)('wallet login in either format (%s)', (kind) => {
  let bed: BridgeTestBed;
  let issuer: TestIssuer;
  let statusServer: StatusListServer;
  let b: BridgeApp;
  let calls: SessionCalls;
  let wallet: TestWallet;
  let identityId: string;

  beforeAll(async () => {
    bed = await startTestBed(kind);
    issuer = await createTestIssuer();
    statusServer = await issuer.statusListServer();
    const config = bridgeConfigFor(issuer, statusServer.url);
    const walletLogin = config.walletLogin as Record<string, unknown>;
    b = await buildBridgeApp(bed.t.platform, {
      listen: true,
      bridge: {
        ...config,
        walletLogin: { ...walletLogin, alternative: { format: 'jwt_vc_json', type: DEMO_VC_TYPE } },
      },
    });
    calls = sessionCalls(b, bed.portalToken, bed.tokenServiceToken);
    wallet = await createTestWallet();
    for (const format of ['dc+sd-jwt', 'jwt_vc_json'] as const)
      await issueCredentialToWallet(issuer, wallet, { format, claims: PERSON });
    identityId = await bindKnownHolder(bed.t.platform, b.identities, await holderKeyOf(wallet.holderJwk));
  });
  afterAll(async () => {
    await b?.close();
    await issuer?.close();
    await bed?.close();
  });

  it('the development W3C type is the test wallet’s', () => {
    expect(DEVELOPMENT_W3C_TYPE).toBe(DEMO_VC_TYPE);
  });

  it.each(['jwt_vc_json', 'dc+sd-jwt'] as const)('a wallet answering with %s only signs in', async (format) => {
    const { sessionId, requestUri } = await calls.create({ queryId: 'wallet-login' });
    const answer = await wallet.respond(requestUri, { formats: [format] });
    expect(answer.status).toBe(200);
    expect((await calls.status(sessionId)).body).toMatchObject({ status: 'VERIFIED' });
    const done = await calls.complete(sessionId);
    expect(done.body).toMatchObject({ userId: identityId, claims: expect.objectContaining(PERSON) });
  });
});
