import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import {
  createTestIssuer,
  createTestWallet,
  issueCredentialToWallet,
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
  type SessionCalls,
} from './support/wallet-flow.js';

/**
 * One junk POST must not spoil the sign-in (README "Rejected responses"): anyone who sees the QR code can fetch the
 * request object and post to the response URI. Responses that fail are recorded with their check and the session
 * stays open for a valid one, up to `maxFailedResponses`; a valid response wins once; replays are refused.
 */
describe.each(DATABASE_KINDS)('rejected responses (%s)', (kind) => {
  let bed: BridgeTestBed;
  let issuer: TestIssuer;
  let statusServer: StatusListServer;
  let b: BridgeApp;
  let strict: BridgeApp;
  let calls: SessionCalls;
  let wallet: TestWallet;

  beforeAll(async () => {
    bed = await startTestBed(kind);
    issuer = await createTestIssuer();
    statusServer = await issuer.statusListServer();
    b = await buildBridgeApp(bed.t.platform, { listen: true, bridge: bridgeConfigFor(issuer, statusServer.url) });
    strict = await buildBridgeApp(bed.t.platform, {
      listen: true,
      bridge: bridgeConfigFor(issuer, statusServer.url, { maxFailedResponses: 1 }),
    });
    calls = sessionCalls(b, bed.portalToken, bed.tokenServiceToken);
    wallet = await createTestWallet();
    await issueCredentialToWallet(issuer, wallet, { format: 'dc+sd-jwt', claims: PERSON });
    await bindKnownHolder(bed.t.platform, b.identities, await holderKeyOf(wallet.holderJwk));
  });
  afterAll(async () => {
    await b?.close();
    await strict?.close();
    await issuer?.close();
    await bed?.close();
  });

  /** What a bystander does with the QR code: fetch the request object, post whatever it likes to the response URI. */
  async function bystanderPost(requestUri: string, body: string): Promise<number> {
    const requestUrl = new URL(requestUri).searchParams.get('request_uri')!;
    await fetch(requestUrl);
    const res = await fetch(requestUrl.replace('/requests/', '/responses/'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    return res.status;
  }

  it('junk that fails to decrypt and a hostile presentation are recorded; the valid response after them wins, once', async () => {
    const { sessionId, requestUri } = await calls.create();
    expect(await bystanderPost(requestUri, 'response=not.a.jwe.at-all')).toBe(400);
    expect((await calls.status(sessionId)).body).toMatchObject({
      status: 'INTERACTION_STARTED',
      rejectedResponses: 1,
      lastRejection: { check: 'decryption' },
    });
    expect((await wallet.respond(requestUri, { wrongNonce: true })).status).toBe(400);
    expect((await calls.status(sessionId)).body).toMatchObject({
      status: 'INTERACTION_STARTED',
      rejectedResponses: 2,
      lastRejection: { check: 'nonce' },
    });

    expect((await wallet.respond(requestUri)).status).toBe(200);
    expect((await calls.status(sessionId)).body).toMatchObject({ status: 'VERIFIED', rejectedResponses: 2 });
    // The nonce is spent by the accepted response: the same response again, or any other POST, is refused.
    expect((await wallet.resubmitLastResponse()).status).toBe(400);
    expect(await bystanderPost(requestUri, 'error=access_denied')).toBe(400);
    expect((await calls.status(sessionId)).body).toMatchObject({ status: 'VERIFIED', rejectedResponses: 2 });
    expect((await calls.complete(sessionId)).statusCode).toBe(200);

    // The accepted presentation replayed into another session is refused there (the replay index).
    const captured = wallet.captureLastResponse()!;
    const other = await calls.create();
    expect((await wallet.respond(other.requestUri, { replayFrom: captured })).status).toBe(400);
    expect((await calls.status(other.sessionId)).body).toMatchObject({ lastRejection: { check: 'replay' } });
  });

  it('ends in ERROR at maxFailedResponses (default 3), naming the last check; nothing is accepted afterwards', async () => {
    const { sessionId, requestUri } = await calls.create();
    for (const junk of ['response=x', 'response=y']) expect(await bystanderPost(requestUri, junk)).toBe(400);
    expect((await calls.status(sessionId)).body.status).toBe('INTERACTION_STARTED');
    expect((await wallet.respond(requestUri, { wrongAudience: true })).status).toBe(400);
    expect((await calls.status(sessionId)).body).toMatchObject({
      status: 'ERROR',
      failure: { check: 'audience' },
      rejectedResponses: 3,
    });
    // The request object is no longer served (409), and a response posted anyway is refused and not counted.
    await expect(wallet.respond(requestUri)).rejects.toThrow(/409/);
    expect(await bystanderPost(requestUri, 'response=z')).toBe(400);
    expect((await calls.status(sessionId)).body).toMatchObject({ status: 'ERROR', rejectedResponses: 3 });
  });

  it('maxFailedResponses 1 ends the session at the first failed response', async () => {
    const strictCalls = sessionCalls(strict, bed.portalToken, bed.tokenServiceToken);
    const { sessionId, requestUri } = await strictCalls.create();
    expect(await bystanderPost(requestUri, 'response=junk')).toBe(400);
    expect((await strictCalls.status(sessionId)).body).toMatchObject({
      status: 'ERROR',
      failure: { check: 'decryption' },
      rejectedResponses: 1,
    });
  });
});
