import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRoleApp, type RoleApp } from '../src/http/create-app.js';
import {
  CREATE_DESTINATION,
  DELETE_DESTINATION,
  LIST_DELIVERIES,
  OutboundService,
  enqueue,
  registerWebhookRoutes,
} from '../src/outbound/index.js';
import { startTestReceiver, type TestReceiver } from './support/outbound-receiver.js';
import {
  DATABASE_KINDS,
  createTestPlatform,
  startTestIssuer,
  type TestIssuer,
  type TestPlatform,
} from '../src/testing/index.js';

const DESTINATIONS = '/api/v1/webhooks/destinations';
const DELIVERIES = '/api/v1/webhooks/deliveries';

describe.each(DATABASE_KINDS)('webhook API (%s)', (kind) => {
  let t: TestPlatform;
  let app: RoleApp;
  let issuer: TestIssuer;
  let receiver: TestReceiver;
  let service: OutboundService;
  let admin: string;
  let betaAdmin: string;
  let reader: string;

  beforeAll(async () => {
    issuer = await startTestIssuer();
    receiver = await startTestReceiver();
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
    service = new OutboundService(t.platform, { allowPrivateOrigins: [receiver.origin] });
    app = await createRoleApp(t.platform, { role: 'test', title: 'Test API', family: 'platform' });
    registerWebhookRoutes(app, t.platform, service);
    await app.ready();
    admin = await issuer.sign({ sub: 'alice', tenant_id: 'alpha', roles: ['tenant-admin'] });
    betaAdmin = await issuer.sign({ sub: 'bob', tenant_id: 'beta', roles: ['tenant-admin'] });
    reader = await issuer.sign({ sub: 'carol', tenant_id: 'alpha', roles: [] });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await t?.close();
    await issuer?.close();
    await receiver?.close();
  });

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, token?: string, payload?: unknown) =>
    app.inject({
      method,
      url,
      headers: token ? { authorization: `Bearer ${token}` } : {},
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });

  it('creates a destination, answers its secret once, lists it without the secret, and audits neither', async () => {
    const created = await call('POST', DESTINATIONS, admin, { url: receiver.url, eventTypes: ['thing.created'] });
    expect(created.statusCode).toBe(201);
    const body = created.json<{ id: string; secret: string; url: string; circuit: { state: string } }>();
    expect(body.secret).toMatch(/^whsec_/);
    expect(body).toMatchObject({ url: receiver.url, enabled: true, eventTypes: ['thing.created'] });
    expect(body.circuit.state).toBe('closed');
    expect(created.headers['cache-control']).toBe('no-store');

    const listed = await call('GET', DESTINATIONS, admin);
    expect(listed.statusCode).toBe(200);
    expect(listed.body).not.toContain(body.secret);
    expect(listed.json<{ data: { id: string }[] }>().data.map((d) => d.id)).toEqual([body.id]);
    // The other tenant does not see it, nor can it delete it.
    expect((await call('GET', DESTINATIONS, betaAdmin)).json()).toEqual({ data: [] });
    expect((await call('DELETE', `${DESTINATIONS}/${body.id}`, betaAdmin)).statusCode).toBe(404);

    const events = (await t.platform.audit.query({ tenantId: 'alpha', commandId: CREATE_DESTINATION, limit: 10 }))
      .events;
    expect(events).toHaveLength(1);
    expect(events[0]!.businessIds).toEqual({ destinationId: body.id });
    expect(JSON.stringify(events)).not.toContain(body.secret.slice(6));
    expect(JSON.stringify(events)).not.toContain(receiver.url);
    // At rest the secret is sealed by the key manager, never in clear.
    const stored = await t.platform.db.withPlatform((sql) =>
      sql.query<{ sealed_secret: string }>(`SELECT sealed_secret FROM webhook_destinations`),
    );
    expect(stored.rows).toHaveLength(1);
    expect(stored.rows[0]!.sealed_secret).not.toContain(body.secret.slice(6));
    expect(stored.rows[0]!.sealed_secret).not.toContain(Buffer.from(body.secret.slice(6), 'base64').toString('hex'));
  });

  it('lists delivery status by destination and status, a page at a time, without payloads', async () => {
    const [destination] = (await call('GET', DESTINATIONS, admin)).json<{ data: { id: string }[] }>().data;
    await t.platform.db.withTenant('alpha', async (sql) => {
      for (let i = 0; i < 5; i++) await enqueue(sql, { type: 'thing.created', data: { secretValue: `s-${i}` } });
    });
    const first = await call('GET', `${DELIVERIES}?destination=${destination!.id}&status=pending&limit=2`, admin);
    expect(first.statusCode).toBe(200);
    const page1 = first.json<{ data: { id: string; status: string }[]; pagination: { nextCursor: string } }>();
    expect(page1.data).toHaveLength(2);
    expect(first.body).not.toContain('s-0');
    const ids = page1.data.map((d) => d.id);
    let cursor: string | null = page1.pagination.nextCursor;
    while (cursor) {
      const res = await call('GET', `${DELIVERIES}?destination=${destination!.id}&limit=2&cursor=${cursor}`, admin);
      const page = res.json<{ data: { id: string }[]; pagination: { nextCursor: string | null } }>();
      ids.push(...page.data.map((d) => d.id));
      cursor = page.pagination.nextCursor;
    }
    expect(new Set(ids).size).toBe(5);

    while ((await service.deliverDue()) > 0);
    const delivered = await call('GET', `${DELIVERIES}?status=delivered`, admin);
    expect(delivered.json<{ data: { status: string }[] }>().data).toHaveLength(5);
    expect((await call('GET', `${DELIVERIES}?status=pending`, admin)).json()).toMatchObject({ data: [] });
    expect((await call('GET', DELIVERIES, betaAdmin)).json()).toMatchObject({ data: [] });
    const audited = await t.platform.audit.query({ tenantId: 'alpha', commandId: LIST_DELIVERIES, limit: 50 });
    expect(audited.events.length).toBeGreaterThan(0);
  });

  it('answers 4xx in the platform envelope for bad input, never a 5xx', async () => {
    for (const [url, method, payload] of [
      [`${DELIVERIES}?status=lost`, 'GET', undefined],
      [`${DELIVERIES}?destination=not-a-uuid`, 'GET', undefined],
      [`${DELIVERIES}?cursor=bm90LWpzb24`, 'GET', undefined],
      [`${DELIVERIES}?limit=0`, 'GET', undefined],
      [`${DESTINATIONS}/123`, 'DELETE', undefined],
      [DESTINATIONS, 'POST', { url: 'https://10.0.0.1/hook' }],
      [DESTINATIONS, 'POST', { url: 'https://169.254.169.254/latest' }],
      [DESTINATIONS, 'POST', { url: 'http://127.0.0.1:1/hook' }],
      [DESTINATIONS, 'POST', { url: 'nope' }],
      [DESTINATIONS, 'POST', { url: receiver.url, extra: true }],
      [DESTINATIONS, 'POST', { url: receiver.url, eventTypes: ['bad type'] }],
    ] as const) {
      const res = await call(method, url, admin, payload);
      expect(res.statusCode, `${method} ${url} ${JSON.stringify(payload)}`).toBe(400);
    }
    expect((await call('DELETE', `${DESTINATIONS}/00000000-0000-4000-8000-000000000000`, admin)).statusCode).toBe(404);
  });

  it('refuses callers who are not administrators, and callers without a token', async () => {
    expect((await call('GET', DELIVERIES, reader)).statusCode).toBe(403);
    expect((await call('POST', DESTINATIONS, reader, { url: receiver.url })).statusCode).toBe(403);
    expect((await call('GET', DELIVERIES)).statusCode).toBe(401);
  });

  it('deletes a destination with its deliveries', async () => {
    const [destination] = (await call('GET', DESTINATIONS, admin)).json<{ data: { id: string }[] }>().data;
    expect((await call('DELETE', `${DESTINATIONS}/${destination!.id}`, admin)).statusCode).toBe(204);
    expect((await call('GET', DESTINATIONS, admin)).json()).toEqual({ data: [] });
    expect((await call('GET', DELIVERIES, admin)).json()).toMatchObject({ data: [] });
    const audited = await t.platform.audit.query({ tenantId: 'alpha', commandId: DELETE_DESTINATION, limit: 10 });
    expect(audited.events.map((e) => e.result)).toContain('success');
  });
});
