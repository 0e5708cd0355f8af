import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '@tessera/platform';
import { DATABASE_KINDS, loseAuditChaining } from '@tessera/platform/testing';
import {
  createTestIssuer,
  createTestWallet,
  issueCredentialToWallet,
  type StatusListServer,
  type TestIssuer,
  type TestWallet,
} from '@tessera/test-wallet';
import { buildBridgeApp, startTestBed, type BridgeApp, type BridgeTestBed } from './support/bridge-app.js';
import { bridgeConfigFor, holderKeyOf, PERSON, sessionCalls, type SessionCalls } from './support/wallet-flow.js';

/**
 * Issue 13 §7 for the session completion (000 §4.1): the completion, its `binding_created` and `session_completed`
 * events and the command's own event commit in one unit of work. A completion that committed is answered 200 even
 * when its events cannot be chained yet (they stay staged for the recovery); one that fails has changed nothing:
 * the session is still VERIFIED, no binding was made, nothing was staged.
 */
describe.each(DATABASE_KINDS)('session completion and its audit events (%s)', (kind) => {
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
  beforeEach(() => clock.set(new Date()));
  afterEach(() => vi.restoreAllMocks());

  /** A wallet of a person known by service id but not bound yet: completion auto-matches and binds. */
  async function matchableSession(serviceId: string): Promise<{ sessionId: string; wallet: TestWallet }> {
    const claims = { ...PERSON, service_id: serviceId };
    await bed.t.platform.db.withTenant('demo', (sql) =>
      b.identities.createIdentity(
        { tenantId: 'demo', sql },
        { claims, assurance: { acr: 'urn:test:loa:substantial', amr: ['federation'] } },
      ),
    );
    const wallet = await createTestWallet();
    await issueCredentialToWallet(issuer, wallet, { format: 'dc+sd-jwt', claims });
    const { sessionId, requestUri } = await calls.create({ queryId: 'wallet-login' });
    expect((await wallet.respond(requestUri)).status).toBe(200);
    return { sessionId, wallet };
  }

  /** Still staged once the chaining this process queued has ended (commands answer before it). */
  const staged = async () => {
    await bed.t.platform.audit.settled();
    return (
      await bed.t.platform.db.withTenant('demo', (sql) =>
        sql.query<{ type: string; session_id: string | null }>(
          `SELECT event->>'type' AS type, event->'businessIds'->>'sessionId' AS session_id FROM audit_pending`,
        ),
      )
    ).rows;
  };

  it('answers a committed completion whose events cannot be chained yet; the recovery chains them', async () => {
    const { sessionId } = await matchableSession('complete-atomic-1');
    const audit = bed.t.platform.audit;
    const chainAgain = loseAuditChaining(
      audit,
      (event, staged) => staged || event.commandId === 'bridge.sessions.complete',
    );
    const completed = await calls.complete(sessionId);
    expect(completed.statusCode).toBe(200);
    chainAgain();
    expect(
      (await staged())
        .filter((r) => r.session_id === sessionId)
        .map((r) => r.type)
        .sort(),
    ).toEqual(['binding_created', 'command.executed', 'session_completed']);

    await audit.recoverPending(-60);
    const events = (await audit.query({ tenantId: 'demo', limit: 500 })).events.filter(
      (e) => e.businessIds.sessionId === sessionId && e.details.recovered === true,
    );
    expect(events.map((e) => e.type).sort()).toEqual(['binding_created', 'command.executed', 'session_completed']);
    expect(await staged()).toEqual([]);
    expect(await audit.verify('demo')).toMatchObject({ ok: true });
  });

  it('a completion that fails in its unit of work changes nothing and stages nothing', async () => {
    const { sessionId, wallet } = await matchableSession('complete-atomic-2');
    vi.spyOn(b.identities, 'bindWallet').mockRejectedValueOnce(new Error('disk full'));
    expect((await calls.complete(sessionId)).statusCode).toBe(500);
    vi.restoreAllMocks();
    expect((await calls.status(sessionId)).body.status).toBe('VERIFIED');
    const holderKey = await holderKeyOf(wallet.holderJwk);
    const bound = await bed.t.platform.db.withTenant('demo', (sql) =>
      b.identities.findByHolderKey({ tenantId: 'demo', sql }, holderKey),
    );
    expect(bound).toBeNull();
    expect(await staged()).toEqual([]);
    // And it completes once the failure is gone.
    expect((await calls.complete(sessionId)).statusCode).toBe(200);
  });
});
