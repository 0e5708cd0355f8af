import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toCef, toJsonLine, type AuditEvent, type AuditEventInput } from '../src/audit/index.js';
import { createRoleApp, type RoleApp } from '../src/http/create-app.js';
import { EventForwardingService, registerForwarderRoutes, registerSsfRoutes } from '../src/event-forwarding/index.js';
import { OutboundService } from '../src/outbound/index.js';
import {
  DATABASE_KINDS,
  createTestPlatform,
  freePort,
  startTestIssuer,
  type TestIssuer,
  type TestPlatform,
} from '../src/testing/index.js';
import { makeTestPki, startSyslogCollector, type SyslogCollector, type TestPki } from './support/syslog-collector.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** RFC 5424 §6: `<PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID SD MSG`, MSG after the UTF-8 BOM. */
const SYSLOG = /^<(\d{1,3})>1 (\S+) (\S+) (\S+) (\S+) (\S+) - \uFEFF([\s\S]*)$/;

describe.each(DATABASE_KINDS)('audit forwarding to syslog over TLS, RFC 5425 (%s)', (kind) => {
  let t: TestPlatform;
  let issuer: TestIssuer;
  let app: RoleApp;
  let base: string;
  let outbound: OutboundService;
  let forwarding: EventForwardingService;
  let pki: TestPki;
  let collector: SyslogCollector;
  let untrusted: SyslogCollector;
  let admin: string;

  beforeAll(async () => {
    pki = makeTestPki();
    // The second collector presents a certificate of another CA: the sender must not talk to it.
    const stranger = makeTestPki();
    [issuer, collector, untrusted] = await Promise.all([
      startTestIssuer(),
      startSyslogCollector(pki, { requireClientCert: true }),
      startSyslogCollector(stranger),
    ]);
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
    outbound = new OutboundService(t.platform, {
      allowPrivateOrigins: [collector.url, untrusted.url],
      retryBaseMs: 20,
      retryCapMs: 50,
      timeoutMs: 5000,
      syslogTls: { ca: pki.ca, cert: pki.client.cert, key: pki.client.key },
    });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    forwarding = new EventForwardingService(t.platform, outbound, { transmitterUrl: base, productVersion: '9.9.9' });
    app = await createRoleApp(t.platform, { role: 'test', title: 'Test forwarders', family: 'platform' });
    registerSsfRoutes(app, t.platform, forwarding);
    registerForwarderRoutes(app, t.platform, forwarding);
    await app.listen({ host: '127.0.0.1', port });
    admin = await issuer.sign({ sub: 'siem-admin', tenant_id: 'alpha', roles: ['tenant-admin'] });
  }, 60_000);

  afterAll(async () => {
    await outbound?.stop();
    await app?.close();
    await t?.close();
    await issuer?.close();
    await Promise.all([collector, untrusted].map((c) => c?.close()));
  });

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${admin}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
  };

  const appendAll = async (inputs: Omit<AuditEventInput, 'tenantId'>[]): Promise<AuditEvent[]> => {
    const ids = inputs.map(() => randomUUID());
    await Promise.all(inputs.map((e, i) => t.platform.audit.append({ ...e, tenantId: 'alpha', eventId: ids[i] })));
    await t.platform.audit.whenIdle();
    const page = await t.platform.audit.query({ tenantId: 'alpha', limit: 500 });
    return ids.map((id) => page.events.find((e) => e.eventId === id)!);
  };

  const roundsUntil = async (done: () => boolean | Promise<boolean>, limitMs = 30_000) => {
    const end = Date.now() + limitMs;
    while (!(await done())) {
      if (Date.now() > end) throw new Error('condition not reached');
      await forwarding.forwardDue();
      await outbound.deliverDue();
      await sleep(20);
    }
  };

  const forwarder = async (url: string, format: 'json' | 'cef', eventTypes: string[]) => {
    const res = await call('POST', '/api/v1/event-forwarders', { url, format, eventTypes });
    expect(res.status).toBe(201);
    return res.body as { id: string; destinationId: string };
  };

  const messagesWith = (c: SyslogCollector, text: string) => c.messages.filter((m) => m.includes(text));

  it('sends each event once as an RFC 5424 message framed by octet count, on one mutually authenticated connection', async () => {
    await forwarder(collector.url, 'cef', ['syslog.cef']);
    await forwarder(collector.url, 'json', ['syslog.json']);
    const events = await appendAll([
      { type: 'syslog.cef', commandId: 'x.y.ok', principalId: 'p1', result: 'success', businessIds: { a: '1' } },
      { type: 'syslog.cef', commandId: 'x.y.refused', principalId: 'p2', result: 'denied' },
      { type: 'syslog.json', commandId: 'x.y.failed', result: 'failure', details: { line: 'one\ntwo' } },
      { type: 'syslog.ignored', commandId: 'x.y.other', result: 'success' },
    ]);
    const [ok, refused, failed, ignored] = events;
    await roundsUntil(() => [ok, refused, failed].every((e) => messagesWith(collector, e!.eventId).length === 1));

    const parsed = (e: AuditEvent) => SYSLOG.exec(messagesWith(collector, e.eventId)[0]!)!;
    const okFields = parsed(ok!);
    // Facility 13 (log audit): success informational (110), denial notice (109), failure warning (108).
    expect(okFields[1]).toBe('110');
    expect(parsed(refused!)[1]).toBe('109');
    expect(parsed(failed!)[1]).toBe('108');
    expect(okFields[2]).toBe(new Date(ok!.occurredAt).toISOString());
    expect(okFields[4]).toBe('tessera');
    expect(okFields[5]).toBe(String(process.pid));
    expect(okFields[6]).toBe('syslog.cef');
    expect(okFields[7]).toBe(toCef(ok!, { productVersion: '9.9.9' }));
    // A JSON body with a line break inside stays one record (octet counting, not newline framing).
    expect(parsed(failed!)[7]).toBe(toJsonLine(failed!));
    expect(messagesWith(collector, ignored!.eventId)).toEqual([]);
    // One connection for all of them, authenticated by the sender's client certificate.
    expect(collector.connections).toBe(1);
    expect(collector.peers).toEqual(['tessera-sender']);
    const deliveries = await outbound.listDeliveries('alpha', { status: 'delivered', limit: 100 });
    expect(deliveries.filter((d) => d.eventType.startsWith('syslog.')).length).toBe(3);
    expect(deliveries.every((d) => d.lastStatusCode === null)).toBe(true);
  }, 60_000);

  it('opens a new connection after the collector dropped its own, and loses nothing sent after that', async () => {
    const before = collector.connections;
    collector.dropConnections();
    await sleep(50);
    const [event] = await appendAll([{ type: 'syslog.cef', commandId: 'x.y.after-drop', result: 'success' }]);
    await roundsUntil(() => messagesWith(collector, event!.eventId).length === 1);
    expect(collector.connections).toBe(before + 1);
  }, 60_000);

  it('holds and retries deliveries to a collector whose certificate it does not trust; that collector gets nothing', async () => {
    const made = await forwarder(untrusted.url, 'json', ['syslog.untrusted']);
    const [event] = await appendAll([{ type: 'syslog.untrusted', commandId: 'x.y.held', result: 'success' }]);
    const held = async () =>
      (await outbound.listDeliveries('alpha', { destinationId: made.destinationId, limit: 10 })).find(
        (d) => d.attempts >= 2,
      );
    await roundsUntil(async () => (await held()) !== undefined);
    const delivery = (await held())!;
    expect(delivery.status).toBe('failed');
    expect(delivery.lastError).toBe('network');
    expect(untrusted.messages).toEqual([]);
    expect(messagesWith(collector, event!.eventId)).toEqual([]);
  }, 60_000);

  it('refuses syslog URLs with a path, to private addresses, on SSF streams and as webhooks, with a 400 naming the field', async () => {
    for (const url of [
      `${collector.url}/path`,
      `${collector.url}?q=1`,
      'syslog-tls://10.0.0.1:6514',
      'syslog-tls://',
    ]) {
      const res = await call('POST', '/api/v1/event-forwarders', { url, format: 'json' });
      expect(res.status, url).toBe(400);
    }
    const stream = await call('POST', '/ssf/streams', {
      delivery: { method: 'urn:ietf:rfc:8935', endpoint_url: collector.url },
      events_requested: ['urn:tessera:secevent:audit-event'],
    });
    expect(stream.status).toBe(400);
    await expect(outbound.createDestination('alpha', { url: collector.url })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(
      outbound.createDestination('alpha', { url: 'https://example.com/hook', protocol: 'syslog-tls' }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
  }, 60_000);
});
