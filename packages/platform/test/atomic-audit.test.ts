import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MigrationTarget } from '../src/db/migrate.js';
import { EventForwardingService, registerForwarderRoutes, registerSsfRoutes } from '../src/event-forwarding/index.js';
import { createRoleApp, type RoleApp } from '../src/http/create-app.js';
import { OutboundService, registerWebhookRoutes } from '../src/outbound/index.js';
import {
  DATABASE_KINDS,
  createTestPlatform,
  refuseAuditStaging,
  startTestIssuer,
  type TestIssuer,
  type TestPlatform,
} from '../src/testing/index.js';
import { startSetReceiver, type SetReceiver } from './support/set-receiver.js';

const PUSH = 'urn:ietf:rfc:8935';

/**
 * Issue 13 §7 for the webhook and event-forwarding commands: each write commits with its audit event (staged in the
 * command's unit of work, then chained), and a write whose unit of work is refused answers an error and leaves the
 * destinations, streams and outbox as they were, with nothing staged.
 */
describe.each(DATABASE_KINDS)('webhook and forwarding writes and their audit events (%s)', (kind) => {
  let t: TestPlatform;
  let issuer: TestIssuer;
  let receiver: SetReceiver;
  let app: RoleApp;
  let admin: string;

  beforeAll(async () => {
    issuer = await startTestIssuer();
    receiver = await startSetReceiver();
    t = await createTestPlatform(kind, {
      overrides: {
        auth: {
          issuers: [
            { issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: issuer.audience, tenants: 'any', roles: 'any' },
          ],
        },
        rateLimit: { enabled: false },
      },
    });
    await t.platform.tenants.ensure({ id: 'alpha', displayName: 'Alpha' });
    await t.platform.tenants.load();
    const outbound = new OutboundService(t.platform, { allowPrivateOrigins: [receiver.origin] });
    const forwarding = new EventForwardingService(t.platform, outbound, { transmitterUrl: 'http://127.0.0.1:1' });
    app = await createRoleApp(t.platform, { role: 'test', title: 'Test API', family: 'platform' });
    registerWebhookRoutes(app, t.platform, outbound);
    registerSsfRoutes(app, t.platform, forwarding);
    registerForwarderRoutes(app, t.platform, forwarding);
    await app.ready();
    admin = await issuer.sign({ sub: 'siem-admin', tenant_id: 'alpha', roles: ['tenant-admin'], azp: 'siem-receiver' });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await t?.close();
    await issuer?.close();
    await receiver?.close();
  });

  const call = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: Record<string, unknown>) => {
    const res = await app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${admin}` },
      ...(payload === undefined ? {} : { payload }),
    });
    return { status: res.statusCode, body: res.body ? (res.json() as Record<string, unknown>) : {} };
  };

  const superuser = (text: string) =>
    (t.platform.db as unknown as MigrationTarget).migrationSession(async (sql) => (await sql.query(text)).rows);

  /** Everything these commands write, row by row, and what is staged. */
  const state = async () => ({
    destinations: await superuser('SELECT * FROM webhook_destinations ORDER BY id'),
    streams: await superuser('SELECT * FROM event_streams ORDER BY id'),
    deliveries: await superuser('SELECT id, destination_id, event_type FROM webhook_deliveries ORDER BY id'),
    staged: await superuser('SELECT event_id FROM audit_pending'),
  });

  const successes = async (commandId: string) =>
    (await t.platform.audit.query({ tenantId: 'alpha', commandId, limit: 500 })).events.filter(
      (e) => e.result === 'success',
    );

  /**
   * The command once with staging refused (an error answer, nothing changed), then once for real: the answer
   * `expected`, one more success event of the command, whose business ids are `ids` (when given), nothing staged.
   */
  const atomically = async (
    commandId: string,
    attempt: () => Promise<{ status: number; body: Record<string, unknown> }>,
    expected: number,
    ids?: (body: Record<string, unknown>) => Record<string, string>,
  ) => {
    await t.platform.audit.whenIdle();
    const before = await state();
    const eventsBefore = (await successes(commandId)).length;
    const allow = await refuseAuditStaging(t.platform.db);
    try {
      const refused = await attempt();
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ error: expect.any(String) });
    } finally {
      await allow();
    }
    await t.platform.audit.whenIdle();
    expect(await state()).toEqual(before);

    const done = await attempt();
    expect(done.status).toBe(expected);
    await t.platform.audit.whenIdle();
    const events = await successes(commandId);
    expect(events).toHaveLength(eventsBefore + 1);
    if (ids) expect(events.at(-1)!.businessIds).toMatchObject(ids(done.body));
    expect((await state()).staged).toEqual([]);
    expect(await t.platform.audit.verify('alpha')).toMatchObject({ ok: true });
    return done.body;
  };

  it('creates and deletes a webhook destination with its event, or not at all', async () => {
    const created = await atomically(
      'platform.webhooks.create-destination',
      () => call('POST', '/api/v1/webhooks/destinations', { url: receiver.url }),
      201,
      (body) => ({ destinationId: String(body.id) }),
    );
    const id = String(created.id);
    expect((await superuser(`SELECT id FROM webhook_destinations WHERE id = '${id}'`)).length).toBe(1);
    await atomically(
      'platform.webhooks.delete-destination',
      () => call('DELETE', `/api/v1/webhooks/destinations/${id}`),
      204,
      () => ({ destinationId: id }),
    );
    expect(await superuser(`SELECT id FROM webhook_destinations WHERE id = '${id}'`)).toEqual([]);
  });

  it('creates, changes, verifies and deletes an SSF stream with each event, or not at all', async () => {
    const created = await atomically(
      'platform.ssf.create-stream',
      () =>
        call('POST', '/ssf/streams', {
          delivery: { method: PUSH, endpoint_url: receiver.url },
          events_requested: ['https://schemas.openid.net/secevent/caep/event-type/session-revoked'],
          description: 'SIEM',
        }),
      201,
      (body) => ({ streamId: String(body.stream_id) }),
    );
    const streamId = String(created.stream_id);
    const patched = await atomically(
      'platform.ssf.update-stream',
      () => call('PATCH', '/ssf/streams', { stream_id: streamId, description: 'SIEM, renamed' }),
      200,
      () => ({ streamId }),
    );
    expect(patched.description).toBe('SIEM, renamed');
    const paused = await atomically(
      'platform.ssf.update-status',
      () => call('POST', '/ssf/status', { stream_id: streamId, status: 'paused', reason: 'maintenance' }),
      200,
      () => ({ streamId }),
    );
    expect(paused).toMatchObject({ status: 'paused', reason: 'maintenance' });
    await atomically(
      'platform.ssf.verify-stream',
      () => call('POST', '/ssf/verify', { stream_id: streamId, state: 'abc' }),
      204,
      () => ({ streamId }),
    );
    expect(
      await superuser(`SELECT event_type FROM webhook_deliveries WHERE event_type LIKE '%verification'`),
    ).toHaveLength(1);
    await atomically(
      'platform.ssf.delete-stream',
      () => call('DELETE', `/ssf/streams?stream_id=${streamId}`),
      204,
      () => ({ streamId }),
    );
    expect(await superuser(`SELECT id FROM event_streams WHERE id = '${streamId}'`)).toEqual([]);
  });

  it('creates and deletes an event forwarder with its event, or not at all', async () => {
    const created = await atomically(
      'platform.event-forwarders.create',
      () => call('POST', '/api/v1/event-forwarders', { url: receiver.url, format: 'json' }),
      201,
      (body) => ({ forwarderId: String(body.id) }),
    );
    const id = String(created.id);
    await atomically(
      'platform.event-forwarders.delete',
      () => call('DELETE', `/api/v1/event-forwarders/${id}`),
      204,
      () => ({ forwarderId: id }),
    );
    expect(await superuser(`SELECT id FROM event_streams WHERE id = '${id}'`)).toEqual([]);
  });
});
