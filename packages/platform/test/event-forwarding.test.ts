import { randomUUID } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toCef, toJsonLine, toOcsf, type AuditEvent, type AuditEventInput } from '../src/audit/index.js';
import { createRoleApp, type RoleApp } from '../src/http/create-app.js';
import {
  CAEP_CREDENTIAL_CHANGE,
  CAEP_SESSION_REVOKED,
  EventForwardingService,
  RISC_ACCOUNT_PURGED,
  SSF_VERIFICATION,
  TESSERA_AUDIT_EVENT,
  registerForwarderRoutes,
  registerSsfRoutes,
} from '../src/event-forwarding/index.js';
import { enqueue, OutboundService, verifyWebhook, type Delivery } from '../src/outbound/index.js';
import {
  DATABASE_KINDS,
  createTestPlatform,
  freePort,
  startTestIssuer,
  type TestIssuer,
  type TestPlatform,
} from '../src/testing/index.js';
import { jtiOf, startSetReceiver, type SetReceiver } from './support/set-receiver.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const PUSH = 'urn:ietf:rfc:8935';

describe.each(DATABASE_KINDS)('audit forwarding: SSF transmitter and generic forwarders (%s)', (kind) => {
  let t: TestPlatform;
  let issuer: TestIssuer;
  let app: RoleApp;
  let base: string;
  let outbound: OutboundService;
  let forwarding: EventForwardingService;
  let siem: SetReceiver;
  let other: SetReceiver;
  let failing: SetReceiver;
  let refusing: SetReceiver;
  let collector: SetReceiver;
  let admin: string;
  let betaAdmin: string;
  let reader: string;

  beforeAll(async () => {
    issuer = await startTestIssuer();
    [siem, other, failing, refusing, collector] = await Promise.all([1, 2, 3, 4, 5].map(() => startSetReceiver()));
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
    await t.platform.tenants.ensure({ id: 'beta', displayName: 'Beta' });
    await t.platform.tenants.load();
    outbound = new OutboundService(t.platform, {
      allowPrivateOrigins: [siem, other, failing, refusing, collector].map((r) => r.origin),
      retryBaseMs: 20,
      retryCapMs: 50,
      breakerFailureThreshold: 3,
      breakerCooldownMs: 60_000,
      timeoutMs: 5000,
    });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    forwarding = new EventForwardingService(t.platform, outbound, { transmitterUrl: base, productVersion: '9.9.9' });
    app = await createRoleApp(t.platform, { role: 'test', title: 'Test transmitter', family: 'platform' });
    registerSsfRoutes(app, t.platform, forwarding);
    registerForwarderRoutes(app, t.platform, forwarding);
    await app.listen({ host: '127.0.0.1', port });
    admin = await issuer.sign({ sub: 'siem-admin', tenant_id: 'alpha', roles: ['tenant-admin'], azp: 'siem-receiver' });
    betaAdmin = await issuer.sign({ sub: 'bob', tenant_id: 'beta', roles: ['tenant-admin'] });
    reader = await issuer.sign({ sub: 'carol', tenant_id: 'alpha', roles: [] });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await t?.close();
    await issuer?.close();
    await Promise.all([siem, other, failing, refusing, collector].map((r) => r?.close()));
  });

  const call = async (method: string, path: string, token: string | undefined, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
  };

  /** The circuit state of the destination of a receiver's stream (the webhook API lists webhooks only). */
  const circuitOf = async (receiver: SetReceiver) =>
    (
      await t.platform.db.withTenant('alpha', (sql) =>
        sql.query<{ circuit_state: string }>('SELECT circuit_state FROM webhook_destinations WHERE url = $1', [
          receiver.url,
        ]),
      )
    ).rows.map((r) => r.circuit_state);

  /** Audit events as a command would write them; answers them as stored (read back through the audit query). */
  const appendAll = async (inputs: Omit<AuditEventInput, 'tenantId'>[], tenantId = 'alpha') => {
    const ids = inputs.map(() => randomUUID());
    await Promise.all(inputs.map((e, i) => t.platform.audit.append({ ...e, tenantId, eventId: ids[i] })));
    await t.platform.audit.whenIdle();
    const page = await t.platform.audit.query({ tenantId, limit: 500 });
    return ids.map((id) => page.events.find((e) => e.eventId === id)!);
  };

  /** Forwarding and delivery rounds until `done` (generous bound: the machine may be loaded). */
  const roundsUntil = async (done: () => boolean | Promise<boolean>, limitMs = 30_000) => {
    const end = Date.now() + limitMs;
    while (!(await done())) {
      if (Date.now() > end) throw new Error('condition not reached');
      await forwarding.forwardDue();
      await outbound.deliverDue();
      await sleep(20);
    }
  };

  const createStream = async (receiver: SetReceiver, events: string[], token = admin) => {
    const created = await call('POST', '/ssf/streams', token, {
      delivery: { method: PUSH, endpoint_url: receiver.url },
      events_requested: events,
      description: 'SIEM',
    });
    expect(created.status).toBe(201);
    return created.body as { stream_id: string; events_delivered: string[]; aud: string; iss: string };
  };

  it('publishes transmitter metadata; a receiver gets each matching event once as a SET that jose verifies against the published JWKS', async () => {
    const meta = await call('GET', '/.well-known/ssf-configuration/ssf/alpha', undefined);
    expect(meta.status).toBe(200);
    expect(meta.body).toMatchObject({
      issuer: `${base}/ssf/alpha`,
      jwks_uri: `${base}/ssf/alpha/jwks.json`,
      delivery_methods_supported: [PUSH],
      configuration_endpoint: `${base}/ssf/streams`,
      status_endpoint: `${base}/ssf/status`,
      verification_endpoint: `${base}/ssf/verify`,
    });
    expect((await call('GET', '/.well-known/ssf-configuration/ssf/nobody', undefined)).status).toBe(404);

    const stream = await createStream(siem, [
      CAEP_SESSION_REVOKED,
      CAEP_CREDENTIAL_CHANGE,
      RISC_ACCOUNT_PURGED,
      TESSERA_AUDIT_EVENT,
      'urn:example:unsupported',
    ]);
    expect(stream.iss).toBe(`${base}/ssf/alpha`);
    expect(stream.aud).toBe('siem-receiver');
    expect(stream.events_delivered).toEqual([
      CAEP_SESSION_REVOKED,
      CAEP_CREDENTIAL_CHANGE,
      RISC_ACCOUNT_PURGED,
      TESSERA_AUDIT_EVENT,
    ]);

    const [revoked, statusChanged, erased, purged, refusedRevoke, other] = await appendAll([
      {
        type: 'command.executed',
        commandId: 'token-service.revocation.revoke',
        principalId: 'client-a',
        result: 'success',
        correlationId: 'corr-1',
        businessIds: { grantId: 'grant-1' },
      },
      {
        type: 'command.executed',
        commandId: 'status-list.update-entry',
        principalId: 'admin-1',
        result: 'success',
        businessIds: { listId: 'l1' },
      },
      { type: 'gdpr_erasure', commandId: 'bridge.external.erase', principalId: null, result: 'success' },
      { type: 'command.executed', commandId: 'party-rest.persons.delete', principalId: 'admin-1', result: 'success' },
      {
        type: 'command.executed',
        commandId: 'token-service.revocation.revoke',
        principalId: 'client-a',
        result: 'failure',
      },
      {
        type: 'command.executed',
        commandId: 'designs.list',
        principalId: 'admin-1',
        result: 'success',
        details: { count: 2 },
      },
    ]);
    const mine = [revoked, statusChanged, erased, purged, refusedRevoke, other].map((e) => e!.eventId);
    await roundsUntil(() => mine.every((id) => siem.requests.some((r) => jtiOf(r) === id)));
    // More rounds find nothing more to send.
    for (let i = 0; i < 3; i++) {
      await forwarding.forwardDue();
      await outbound.deliverDue();
    }

    // Once per event at the receiver, by jti and by webhook-id.
    expect([...siem.countsBy(jtiOf).values()].every((n) => n === 1)).toBe(true);
    expect([...siem.countsBy((r) => String(r.headers['webhook-id'])).values()].every((n) => n === 1)).toBe(true);

    // An independent library against the published key set, as a receiver would.
    const jwks = createRemoteJWKSet(new URL(String(meta.body!.jwks_uri)));
    const verified = new Map<string, { payload: Record<string, unknown> }>();
    for (const r of siem.requests) {
      expect(r.headers['content-type']).toBe('application/secevent+jwt');
      expect(decodeProtectedHeader(r.body).typ).toBe('secevent+jwt');
      const { payload } = await jwtVerify(r.body, jwks, {
        issuer: `${base}/ssf/alpha`,
        audience: 'siem-receiver',
        typ: 'secevent+jwt',
        algorithms: ['ES256'],
      });
      expect(typeof payload.iat).toBe('number');
      expect(typeof payload.jti).toBe('string');
      expect(Object.keys(payload.events as object)).toHaveLength(1);
      verified.set(String(payload.jti), { payload: payload as Record<string, unknown> });
    }
    const eventsOf = (e: AuditEvent | undefined) =>
      verified.get(e!.eventId)!.payload.events as Record<string, Record<string, unknown>>;
    expect(eventsOf(revoked)[CAEP_SESSION_REVOKED]).toEqual({
      event_timestamp: Math.floor(Date.parse(revoked!.occurredAt) / 1000),
      initiating_entity: 'user',
    });
    expect(verified.get(revoked!.eventId)!.payload).toMatchObject({
      txn: 'corr-1',
      sub_id: {
        format: 'complex',
        session: { format: 'opaque', id: 'grant-1' },
        user: { format: 'opaque', id: 'client-a' },
      },
    });
    expect(eventsOf(statusChanged)[CAEP_CREDENTIAL_CHANGE]).toMatchObject({
      credential_type: 'verifiable-credential',
      change_type: 'update',
      initiating_entity: 'admin',
    });
    expect(eventsOf(erased)[CAEP_CREDENTIAL_CHANGE]).toMatchObject({
      change_type: 'delete',
      initiating_entity: 'system',
    });
    expect(eventsOf(purged)).toHaveProperty([RISC_ACCOUNT_PURGED]);
    // A refused revocation revoked nothing: it goes out as the generic audit event, as stored.
    expect(eventsOf(refusedRevoke)[TESSERA_AUDIT_EVENT]!.audit_event).toEqual(refusedRevoke);
    expect(eventsOf(other)[TESSERA_AUDIT_EVENT]!.audit_event).toEqual(other);
    const forwarded = /audit_forwarded_events_total\{format="set"\} (\d+)/.exec(await t.platform.metrics.render());
    expect(Number(forwarded?.[1])).toBe(siem.requests.length);
  }, 90_000);

  it('sends only the event types delivered, holds events while paused, drops them while disabled, and answers a verification request', async () => {
    const stream = await createStream(other, [CAEP_SESSION_REVOKED]);
    const status = (s: string) => call('POST', '/ssf/status', admin, { stream_id: stream.stream_id, status: s });
    expect((await status('paused')).body).toEqual({ stream_id: stream.stream_id, status: 'paused' });
    const revoke = {
      type: 'command.executed',
      commandId: 'token-service.revocation.revoke',
      principalId: 'c',
      result: 'success',
    } as const;
    const [held] = await appendAll([
      revoke,
      { type: 'command.executed', commandId: 'designs.list', result: 'success' },
    ]);
    for (let i = 0; i < 3; i++) {
      await forwarding.forwardDue();
      await outbound.deliverDue();
    }
    expect(other.requests).toHaveLength(0);
    // The lag gauge shows the paused stream behind its tenant's chain.
    const lag = new RegExp(
      `audit_forwarding_lag_events\\{tenant="alpha",stream="${stream.stream_id}",status="paused"\\} (\\d+)`,
    );
    expect(Number(lag.exec(await t.platform.metrics.render())?.[1])).toBeGreaterThanOrEqual(2);
    expect((await call('GET', `/ssf/status?stream_id=${stream.stream_id}`, admin)).body).toMatchObject({
      status: 'paused',
    });

    expect((await status('enabled')).status).toBe(200);
    await roundsUntil(() => other.requests.length === 1);
    expect(jtiOf(other.requests[0]!)).toBe(held!.eventId);

    await status('disabled');
    const [dropped] = await appendAll([revoke]);
    for (let i = 0; i < 3; i++) await forwarding.forwardDue();
    await status('enabled');
    const [sent] = await appendAll([revoke]);
    await roundsUntil(() => other.requests.some((r) => jtiOf(r) === sent!.eventId));
    expect(other.requests.some((r) => jtiOf(r) === dropped!.eventId)).toBe(false);
    expect(other.requests).toHaveLength(2);

    expect((await call('POST', '/ssf/verify', admin, { stream_id: stream.stream_id, state: 'abc' })).status).toBe(204);
    await roundsUntil(() => other.requests.length === 3);
    const jwks = createRemoteJWKSet(new URL(`${base}/ssf/alpha/jwks.json`));
    const { payload } = await jwtVerify(other.requests[2]!.body, jwks, {
      issuer: `${base}/ssf/alpha`,
      audience: 'siem-receiver',
    });
    expect(payload.events).toEqual({ [SSF_VERIFICATION]: { state: 'abc' } });

    // Changing what is requested changes what is delivered.
    const patched = await call('PATCH', '/ssf/streams', admin, {
      stream_id: stream.stream_id,
      events_requested: [TESSERA_AUDIT_EVENT],
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      events_delivered: [TESSERA_AUDIT_EVENT],
      delivery: { endpoint_url: other.url },
    });
  }, 90_000);

  it('opens the circuit of a receiver answering 500 while another receiver keeps receiving', async () => {
    failing.answer(500);
    const bad = await createStream(failing, [TESSERA_AUDIT_EVENT]);
    const good = await createStream(collector, [TESSERA_AUDIT_EVENT]);
    const events = await appendAll(
      Array.from({ length: 6 }, (_, i) => ({
        type: 'command.executed',
        commandId: `x.y.z${i}`,
        result: 'success' as const,
      })),
    );
    await roundsUntil(async () => {
      const open = (await circuitOf(failing)).includes('open');
      return open && events.every((e) => collector.requests.some((r) => jtiOf(r) === e!.eventId));
    });
    const failed = failing.requests.length;
    // The open circuit holds the failing receiver's deliveries; the other keeps receiving.
    const more = await appendAll([{ type: 'command.executed', commandId: 'x.y.more', result: 'success' }]);
    await roundsUntil(() => collector.requests.some((r) => jtiOf(r) === more[0]!.eventId));
    expect(failing.requests.length).toBe(failed);
    expect(failed).toBeGreaterThanOrEqual(3);
    expect([...collector.countsBy(jtiOf).values()].every((n) => n === 1)).toBe(true);
    expect(bad.stream_id).not.toBe(good.stream_id);
  }, 90_000);

  it('dead-letters a SET the receiver refuses with an RFC 8935 error, without a retry', async () => {
    refusing.answer(400, JSON.stringify({ err: 'invalid_audience', description: 'not ours' }));
    await createStream(refusing, [TESSERA_AUDIT_EVENT]);
    const [event] = await appendAll([{ type: 'command.executed', commandId: 'x.y.refused', result: 'success' }]);
    let delivery: Delivery | undefined;
    await roundsUntil(async () => {
      const deliveries = await outbound.listDeliveries('alpha', { status: 'dead', limit: 50 });
      delivery = deliveries.find((d) => d.lastError === 'rejected');
      return delivery !== undefined;
    });
    expect(delivery).toMatchObject({
      status: 'dead',
      attempts: 1,
      lastStatusCode: 400,
      lastErrorCode: 'invalid_audience',
    });
    for (let i = 0; i < 3; i++) await outbound.deliverDue();
    expect(refusing.requests.filter((r) => jtiOf(r) === event!.eventId)).toHaveLength(1);
    expect(await circuitOf(refusing)).toEqual(['closed']);
  }, 60_000);

  it('forwards JSON, CEF and OCSF bodies made by the audit formatters, signed as Standard Webhooks, filtered by type', async () => {
    const made = await Promise.all(
      (['json', 'cef', 'ocsf'] as const).map(async (format) => {
        const res = await call('POST', '/api/v1/event-forwarders', admin, {
          url: `${collector.origin}/${format}`,
          format,
          eventTypes: ['siem.test'],
        });
        expect(res.status).toBe(201);
        return res.body as { id: string; secret: string; format: string };
      }),
    );
    const [event] = await appendAll([
      { type: 'siem.test', commandId: 'x.y.forwarded', principalId: 'p1', result: 'denied', businessIds: { a: '1' } },
      { type: 'siem.other', commandId: 'x.y.not', result: 'success' },
    ]);
    const at = (format: string) =>
      collector.requests.filter((r) => r.path === `/${format}` && r.body.includes(event!.eventId));
    await roundsUntil(() => ['json', 'cef', 'ocsf'].every((f) => at(f).length === 1));
    expect(at('json')[0]!.body).toBe(toJsonLine(event!));
    expect(at('json')[0]!.headers['content-type']).toBe('application/json');
    expect(at('cef')[0]!.body).toBe(toCef(event!, { productVersion: '9.9.9' }));
    expect(at('cef')[0]!.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(JSON.parse(at('ocsf')[0]!.body)).toEqual(toOcsf(event!, { productVersion: '9.9.9' }));
    for (const f of made) {
      const [received] = at(f.format);
      expect(verifyWebhook(f.secret, received!.headers as Record<string, string>, received!.body).id).toBe(
        received!.headers['webhook-id'],
      );
    }
    // The type filter: the other event reached no forwarder.
    expect(collector.requests.some((r) => r.body.includes('siem.other'))).toBe(false);
    const listed = await call('GET', '/api/v1/event-forwarders', admin);
    expect((listed.body!.data as unknown[]).length).toBe(3);
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');
  }, 60_000);

  it('never holds a command: commands answer while a receiver holds a delivery, and their events follow', async () => {
    refusing.answer(0); // the receiver takes the request and never answers
    const before = refusing.requests.length;
    outbound.start();
    forwarding.start();
    try {
      await appendAll([{ type: 'command.executed', commandId: 'x.y.first', result: 'success' }]);
      const end = Date.now() + 30_000;
      while (refusing.requests.length === before && Date.now() < end) await sleep(20);
      expect(refusing.requests.length).toBeGreaterThan(before);
      // A delivery is in flight and unanswered; commands run and answer all the same.
      const answers = await Promise.all([1, 2, 3].map(() => call('GET', '/api/v1/event-forwarders', admin)));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      const listed = await t.platform.audit.query({
        tenantId: 'alpha',
        commandId: 'platform.event-forwarders.list',
        limit: 500,
      });
      expect(listed.events.length).toBeGreaterThanOrEqual(3);
      // Their events are forwarded once the receiver answers again (retried after the timeout).
      refusing.answer(202);
      const wanted = listed.events.slice(0, 3).map((e) => e.eventId);
      while (
        !wanted.every((id) => refusing.requests.some((r) => r.acknowledged && jtiOf(r) === id)) &&
        Date.now() < end + 60_000
      )
        await sleep(50);
      expect(wanted.every((id) => refusing.requests.some((r) => r.acknowledged && jtiOf(r) === id))).toBe(true);
    } finally {
      await forwarding.stop();
      await outbound.stop();
    }
  }, 120_000);

  it('keeps application webhooks off stream destinations', async () => {
    const ids = await t.platform.db.withTenant('alpha', (sql) => enqueue(sql, { type: 'thing.created', data: {} }));
    expect(ids).toHaveLength(0);
    // Nor are they webhooks to the webhook API (listed, deleted, exported): their own API manages them.
    expect(await outbound.listDestinations('alpha')).toEqual([]);
    const [forwarder] = (await forwarding.listForwarders('alpha'))!;
    await expect(outbound.deleteDestination('alpha', forwarder!.destinationId)).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(forwarder!.circuitState).toBe('closed');
  });

  it('answers 4xx for bad input, unknown streams, other tenants and non-administrators, never a 5xx', async () => {
    const body = { delivery: { method: PUSH, endpoint_url: siem.url }, events_requested: [TESSERA_AUDIT_EVENT] };
    expect((await call('POST', '/ssf/streams', undefined, body)).status).toBe(401);
    expect((await call('POST', '/ssf/streams', reader, body)).status).toBe(403);
    const poll = await call('POST', '/ssf/streams', admin, {
      ...body,
      delivery: { method: 'urn:ietf:rfc:8936', endpoint_url: siem.url },
    });
    expect(poll.status).toBe(400);
    for (const url of ['http://10.0.0.1/x', 'ftp://example.com/x', 'https://user:pw@example.com/x', 'not a url']) {
      const res = await call('POST', '/ssf/streams', admin, { ...body, delivery: { method: PUSH, endpoint_url: url } });
      expect(res.status).toBe(400);
    }
    expect((await call('POST', '/ssf/streams', admin, { ...body, extra: 1 })).status).toBe(400);
    expect((await call('POST', '/ssf/streams', admin, { ...body, events_requested: ['not a uri'] })).status).toBe(400);
    const unknown = randomUUID();
    expect((await call('GET', `/ssf/streams?stream_id=${unknown}`, admin)).status).toBe(404);
    expect((await call('GET', '/ssf/streams?stream_id=nope', admin)).status).toBe(400);
    expect((await call('DELETE', `/ssf/streams?stream_id=${unknown}`, admin)).status).toBe(404);
    expect((await call('PATCH', '/ssf/streams', admin, { stream_id: unknown, description: 'x' })).status).toBe(404);
    expect((await call('POST', '/ssf/status', admin, { stream_id: unknown, status: 'paused' })).status).toBe(404);
    expect((await call('POST', '/ssf/status', admin, { stream_id: unknown, status: 'sleeping' })).status).toBe(400);
    expect((await call('POST', '/ssf/verify', admin, { stream_id: unknown })).status).toBe(404);

    // Another tenant's administrator sees none of alpha's streams, and cannot touch one.
    const mine = await createStream(siem, [TESSERA_AUDIT_EVENT]);
    expect((await call('GET', '/ssf/streams', betaAdmin)).body).toEqual([]);
    expect((await call('GET', `/ssf/streams?stream_id=${mine.stream_id}`, betaAdmin)).status).toBe(404);
    expect((await call('DELETE', `/ssf/streams?stream_id=${mine.stream_id}`, betaAdmin)).status).toBe(404);
    expect((await call('DELETE', `/ssf/streams?stream_id=${mine.stream_id}`, admin)).status).toBe(204);
    expect((await call('GET', `/ssf/streams?stream_id=${mine.stream_id}`, admin)).status).toBe(404);

    expect((await call('POST', '/api/v1/event-forwarders', admin, { url: siem.url, format: 'xml' })).status).toBe(400);
    expect((await call('POST', '/api/v1/event-forwarders', reader, { url: siem.url, format: 'json' })).status).toBe(
      403,
    );
    expect((await call('DELETE', `/api/v1/event-forwarders/${unknown}`, admin)).status).toBe(404);
  }, 60_000);
});
