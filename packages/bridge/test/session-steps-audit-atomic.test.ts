import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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
import { expireSessions } from '../src/commands/expire-sessions.js';
import { buildBridgeApp, startTestBed, type BridgeApp, type BridgeTestBed } from './support/bridge-app.js';
import {
  bindKnownHolder,
  bridgeConfigFor,
  holderKeyOf,
  PERSON,
  sessionCalls,
  type SessionCalls,
} from './support/wallet-flow.js';

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

/**
 * Issue 13 §7 for the steps of a presentation session (000 §3.1): each move commits with its audit event, the
 * command's own (`command.executed`) or the bridge's (`session_verified`, `response_rejected`, `session_failed`),
 * staged in the same unit of work. When the database refuses to stage the event (a trigger raising 57P01 right after
 * the change, in the same transaction), the step answers 503 and the session is as it was before it.
 */
describe.each(DATABASE_KINDS)('session steps and their audit events in one commit (%s)', (kind) => {
  let bed: BridgeTestBed;
  let issuer: TestIssuer;
  let statusServer: StatusListServer;
  let b: BridgeApp;
  let calls: SessionCalls;
  let lift: (() => Promise<void>) | null = null;
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    bed = await startTestBed(kind);
    issuer = await createTestIssuer();
    statusServer = await issuer.statusListServer();
    b = await buildBridgeApp(bed.t.platform, {
      clock,
      listen: true,
      bridge: bridgeConfigFor(issuer, statusServer.url),
    });
    calls = sessionCalls(b, bed.portalToken, bed.tokenServiceToken);
  });
  afterAll(async () => {
    await b?.close();
    await issuer?.close();
    await bed?.close();
  });
  beforeEach(() => clock.set(new Date()));
  afterEach(async () => {
    await lift?.();
    lift = null;
  });

  const refuse = async (match: { commandId: string } | { type: string }) => {
    lift = await refuseAuditStaging(bed.t.platform.db, match);
  };
  const allow = async () => {
    await lift?.();
    lift = null;
  };

  /** A wallet whose holder is bound to an identity already: its session completes at once. */
  async function knownWallet(serviceId: string): Promise<TestWallet> {
    const claims = { ...PERSON, service_id: serviceId };
    const wallet = await createTestWallet();
    await issueCredentialToWallet(issuer, wallet, { format: 'dc+sd-jwt', claims });
    await bindKnownHolder(bed.t.platform, b.identities, await holderKeyOf(wallet.holderJwk), claims);
    return wallet;
  }

  const sessionCount = async () =>
    (
      await bed.t.platform.db.withTenant('demo', (sql) =>
        sql.query<{ n: number }>('SELECT count(*)::int AS n FROM bridge_sessions'),
      )
    ).rows[0]!.n;

  const sessionRow = async (sessionId: string) =>
    (
      await bed.t.platform.db.withTenant('demo', (sql) =>
        sql.query<{ status: string; redeemed: boolean; rejected: number; digests: number }>(
          `SELECT status, redeemed_at IS NOT NULL AS redeemed, jsonb_array_length(rejected_responses)::int AS rejected,
                  (SELECT count(*)::int FROM bridge_used_presentations) AS digests
             FROM bridge_sessions WHERE id = $1`,
          [sessionId],
        ),
      )
    ).rows[0];

  /** The chained events of a session, as `type` or `type:commandId`. */
  const eventsOf = async (sessionId: string) =>
    (await bed.t.platform.audit.query({ tenantId: 'demo', limit: 1000 })).events
      .filter((e) => e.businessIds.sessionId === sessionId)
      .map((e) => (e.commandId ? `${e.type}:${e.commandId}:${e.result}` : `${e.type}:${e.result}`));

  /** Still staged once the chaining this process queued has ended (commands answer before it). */
  const staged = async () => {
    await bed.t.platform.audit.settled();
    return (
      await bed.t.platform.db.withTenant('demo', (sql) =>
        sql.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_pending'),
      )
    ).rows[0]!.n;
  };

  const createRaw = () =>
    b.app.inject({
      method: 'POST',
      url: '/auth/oid4vp/sessions',
      headers: { authorization: `Bearer ${bed.portalToken}` },
      payload: { queryId: 'wallet-login', clientId: 'demo-rp', codeChallenge: CHALLENGE },
    });

  it('session creation: the session and its event commit together; a refused event leaves no session', async () => {
    const created = await createRaw();
    expect(created.statusCode).toBe(200);
    const { sessionId } = created.json<{ sessionId: string }>();
    expect((await sessionRow(sessionId))?.status).toBe('CREATED');
    expect(await eventsOf(sessionId)).toEqual(['command.executed:bridge.sessions.create:success']);

    const before = await sessionCount();
    await refuse({ commandId: 'bridge.sessions.create' });
    const refused = await createRaw();
    expect(refused.statusCode).toBe(503);
    expect(await sessionCount()).toBe(before);
    expect(await staged()).toBe(0);
    await allow();
    expect((await createRaw()).statusCode).toBe(200);
    expect(await sessionCount()).toBe(before + 1);
  });

  it('request object fetch: a refused event leaves the session CREATED; the retry moves it, with its event', async () => {
    const { sessionId, requestUri } = await calls.create();
    const requestUrl = new URL(requestUri).searchParams.get('request_uri')!;
    await refuse({ commandId: 'bridge.requests.fetch' });
    expect((await fetch(requestUrl)).status).toBe(503);
    expect((await sessionRow(sessionId))?.status).toBe('CREATED');
    await allow();
    expect((await fetch(requestUrl)).status).toBe(200);
    expect((await sessionRow(sessionId))?.status).toBe('INTERACTION_STARTED');
    // The fetch names no session in its event (its request id is a bearer of the request object): the last two.
    const fetches = (await bed.t.platform.audit.query({ tenantId: 'demo', commandId: 'bridge.requests.fetch' })).events;
    expect(fetches.slice(-2).map((e) => e.result)).toEqual(['failure', 'success']);
    expect(await staged()).toBe(0);
  });

  it('an accepted response: VERIFIED, its replay digests and session_verified commit together, or none of them', async () => {
    const wallet = await knownWallet('atomic-verified-1');
    const { sessionId, requestUri } = await calls.create();
    const digestsBefore = (await sessionRow(sessionId))!.digests;
    await refuse({ type: 'session_verified' });
    expect((await wallet.respond(requestUri)).status).toBe(503);
    // The nonce was spent (VERIFYING, committed before the checks ran); the verification itself left nothing.
    expect(await sessionRow(sessionId)).toEqual({
      status: 'VERIFYING',
      redeemed: false,
      rejected: 0,
      digests: digestsBefore,
    });
    expect(await eventsOf(sessionId)).not.toContainEqual('session_verified:success');
    expect(await staged()).toBe(0);
    await allow();

    const next = await calls.create();
    expect((await wallet.respond(next.requestUri)).status).toBe(200);
    expect((await sessionRow(next.sessionId))?.status).toBe('VERIFIED');
    expect((await sessionRow(next.sessionId))!.digests).toBeGreaterThan(digestsBefore);
    expect(await eventsOf(next.sessionId)).toContain('session_verified:success');
  });

  it('a refused response: the rejection and response_rejected commit together, or neither', async () => {
    const wallet = await knownWallet('atomic-rejected-1');
    const { sessionId, requestUri } = await calls.create();
    await refuse({ type: 'response_rejected' });
    expect((await wallet.respond(requestUri, { wrongNonce: true })).status).toBe(503);
    expect(await sessionRow(sessionId)).toMatchObject({ status: 'VERIFYING', rejected: 0 });
    expect(await eventsOf(sessionId)).not.toContainEqual('response_rejected:failure');
    await allow();

    const next = await calls.create();
    expect((await wallet.respond(next.requestUri, { wrongNonce: true })).status).toBe(400);
    expect(await sessionRow(next.sessionId)).toMatchObject({ status: 'INTERACTION_STARTED', rejected: 1 });
    expect(await eventsOf(next.sessionId)).toContain('response_rejected:failure');
  });

  it('expiry on read: EXPIRED and session_failed commit together; refused, the session is not moved', async () => {
    const { sessionId } = await calls.create();
    clock.set(new Date(clock.now().getTime() + (b.config.sessionTimeoutSeconds + 1) * 1000));
    await refuse({ type: 'session_failed' });
    expect((await calls.status(sessionId)).statusCode).toBe(503);
    expect((await sessionRow(sessionId))?.status).toBe('CREATED');
    await allow();
    expect((await calls.status(sessionId)).statusCode).toBe(410);
    expect((await sessionRow(sessionId))?.status).toBe('EXPIRED');
    expect(await eventsOf(sessionId)).toContain('session_failed:failure');
  });

  it('the cleanup job: the expiries of a tenant commit with their session_failed events, or not at all', async () => {
    const { sessionId } = await calls.create();
    clock.set(new Date(clock.now().getTime() + (b.config.sessionTimeoutSeconds + 1) * 1000));
    await refuse({ type: 'session_failed' });
    await expect(expireSessions(b.handle.services)).rejects.toMatchObject({ code: 'service_unavailable' });
    expect((await sessionRow(sessionId))?.status).toBe('CREATED');
    await allow();
    expect((await expireSessions(b.handle.services)).expired).toBeGreaterThanOrEqual(1);
    expect((await sessionRow(sessionId))?.status).toBe('EXPIRED');
    expect(await eventsOf(sessionId)).toContain('session_failed:failure');
    expect(await staged()).toBe(0);
  });

  it('redemption: redeemed once with its event; a refused event leaves the session redeemable', async () => {
    const wallet = await knownWallet('atomic-redeem-1');
    const created = await createRaw();
    const { sessionId, requestUri } = created.json<{ sessionId: string; requestUri: string }>();
    expect((await wallet.respond(requestUri)).status).toBe(200);
    expect((await calls.complete(sessionId)).statusCode).toBe(200);

    await refuse({ commandId: 'bridge.sessions.redeem' });
    const refused = await calls.redeem(sessionId, { clientId: 'demo-rp', codeChallenge: CHALLENGE });
    expect(refused.statusCode).toBe(503);
    expect(await sessionRow(sessionId)).toMatchObject({ status: 'COMPLETED', redeemed: false });
    await allow();

    const redeemed = await calls.redeem(sessionId, { clientId: 'demo-rp', codeChallenge: CHALLENGE });
    expect(redeemed.statusCode).toBe(200);
    expect(redeemed.body).toMatchObject({ sessionId, claimSource: 'CANONICAL_BINDING' });
    expect(await sessionRow(sessionId)).toMatchObject({ status: 'COMPLETED', redeemed: true });
    expect(await eventsOf(sessionId)).toEqual(
      expect.arrayContaining([
        'command.executed:bridge.sessions.redeem:failure',
        'command.executed:bridge.sessions.redeem:success',
      ]),
    );
    // Redeemed once: the second answer is a refusal.
    expect((await calls.redeem(sessionId, { clientId: 'demo-rp', codeChallenge: CHALLENGE })).statusCode).toBe(409);
  });
});
