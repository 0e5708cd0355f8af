import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformMigrations, createRoleApp, type RoleApp } from '../src/index.js';
import {
  DATABASE_KINDS,
  createTestPlatform,
  roomInRateLimitWindow,
  startTestIssuer,
  type TestIssuer,
  type TestPlatform,
} from '../src/testing/index.js';
import { notesMigration, registerNotesRoutes } from './support/notes-context.js';

/**
 * The platform seen through HTTP, on both database engines: tenancy, policy, error envelopes, audit of
 * commands, logs without secrets, operational endpoints and OpenAPI (issue 2, "How it must show").
 */
describe.each(DATABASE_KINDS)('platform over HTTP (%s)', (kind) => {
  let t: TestPlatform;
  let app: RoleApp;
  let issuer: TestIssuer;
  let adminAlpha: string;
  let readerAlpha: string;
  let adminBeta: string;

  beforeAll(async () => {
    issuer = await startTestIssuer();
    t = await createTestPlatform(kind, {
      migrations: [...platformMigrations, notesMigration],
      overrides: {
        tenancy: { seedDemoTenant: true, hostMappings: { 'alpha.test': 'alpha', 'beta.test': 'beta' } },
        // The deployment's own issuer: trusted for every tenant and role (issue 13 §1).
        auth: {
          issuers: [
            { issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: issuer.audience, tenants: 'any', roles: 'any' },
          ],
        },
        rateLimit: { enabled: true, requestsPerWindow: 1000, windowSeconds: 60 },
      },
    });
    await t.platform.tenants.ensure({ id: 'alpha', displayName: 'Alpha' });
    await t.platform.tenants.ensure({ id: 'beta', displayName: 'Beta' });
    app = await createRoleApp(t.platform, { role: 'test', title: 'Test API', family: 'oauth' });
    registerNotesRoutes(app, t.platform, '/notes', 'oauth');
    registerNotesRoutes(app, t.platform, '/api/v1/design-notes', 'design');
    await app.ready();
    adminAlpha = await issuer.sign({ sub: 'alice', tenant_id: 'alpha', roles: ['tenant-admin'] });
    readerAlpha = await issuer.sign({ sub: 'rita', tenant_id: 'alpha', roles: [] });
    adminBeta = await issuer.sign({ sub: 'bob', tenant_id: 'beta', roles: ['tenant-admin'] });
  });

  afterAll(async () => {
    await app?.close();
    await t?.close();
    await issuer?.close();
  });

  const auth = (token: string) => ({ authorization: `Bearer ${token}` });

  describe('tenancy', () => {
    it('a write lands in the token tenant whatever the body and X-Tenant-Id say', async () => {
      const res = await app.inject({
        method: 'POST',
        url: '/notes',
        headers: { ...auth(adminAlpha), 'x-tenant-id': 'beta' },
        payload: { text: 'alpha-note', tenant_id: 'beta', tenantId: 'beta' },
      });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ tenantId: 'alpha', text: 'alpha-note' });
      const beta = await app.inject({
        method: 'GET',
        url: '/notes',
        headers: { ...auth(adminBeta), 'x-tenant-id': 'alpha' },
      });
      expect(beta.json().data.map((n: { text: string }) => n.text)).not.toContain('alpha-note');
    });

    it('every store method is confined to the resolved tenant', async () => {
      const created = await app.inject({
        method: 'POST',
        url: '/notes',
        headers: auth(adminAlpha),
        payload: { text: 'private' },
      });
      const id = created.json().id as string;
      // Tenant beta tries each method on alpha's note: get, update, delete all answer not found.
      expect((await app.inject({ method: 'GET', url: `/notes/${id}`, headers: auth(adminBeta) })).statusCode).toBe(404);
      expect(
        (
          await app.inject({
            method: 'PUT',
            url: `/notes/${id}`,
            headers: auth(adminBeta),
            payload: { text: 'stolen' },
          })
        ).statusCode,
      ).toBe(404);
      expect((await app.inject({ method: 'DELETE', url: `/notes/${id}`, headers: auth(adminBeta) })).statusCode).toBe(
        404,
      );
      const list = await app.inject({
        method: 'GET',
        url: '/notes',
        headers: { ...auth(adminBeta), 'x-tenant-id': 'alpha' },
      });
      expect(list.json().data.every((n: { tenantId: string }) => n.tenantId === 'beta')).toBe(true);
      // The owner still sees it unchanged.
      const own = await app.inject({ method: 'GET', url: `/notes/${id}`, headers: auth(adminAlpha) });
      expect(own.json()).toMatchObject({ id, text: 'private', tenantId: 'alpha' });
    });

    it('the Host mapping names the tenant when the token does not; a spoofed X-Forwarded-Host changes nothing', async () => {
      const token = await issuer.sign({ sub: 'carol', roles: ['tenant-admin'] });
      const res = await app.inject({
        method: 'POST',
        url: '/notes',
        headers: { ...auth(token), host: 'beta.test', 'x-forwarded-host': 'alpha.test', 'x-tenant-id': 'alpha' },
        payload: { text: 'via-host' },
      });
      expect(res.json()).toMatchObject({ tenantId: 'beta' });
    });

    it("a token of tenant A at tenant B's host is refused", async () => {
      const res = await app.inject({
        method: 'GET',
        url: '/notes',
        headers: { ...auth(adminAlpha), host: 'beta.test' },
      });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error: 'access_denied' });
    });

    it('a request that resolves no tenant fails before the endpoint', async () => {
      const token = await issuer.sign({ sub: 'dave', tenant_id: 'nowhere', roles: ['tenant-admin'] });
      const res = await app.inject({ method: 'POST', url: '/notes', headers: auth(token), payload: { text: 'lost' } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        error: 'invalid_request',
        error_description: 'The request does not resolve to an active tenant.',
      });
      const design = await app.inject({ method: 'GET', url: '/api/v1/design-notes', headers: auth(token) });
      expect(design.json()).toMatchObject({ code: 'TENANT_NOT_RESOLVED' });
    });
  });

  describe('authentication and policy', () => {
    it('a reader may read but a write is denied with 403 in the API envelope, and the denial is audited', async () => {
      expect((await app.inject({ method: 'GET', url: '/notes', headers: auth(readerAlpha) })).statusCode).toBe(200);
      const denied = await app.inject({
        method: 'POST',
        url: '/notes',
        headers: auth(readerAlpha),
        payload: { text: 'nope' },
      });
      expect(denied.statusCode).toBe(403);
      expect(denied.json()).toEqual({
        error: 'access_denied',
        error_description: 'The policy does not allow this action.',
      });
      const designDenied = await app.inject({
        method: 'POST',
        url: '/api/v1/design-notes',
        headers: auth(readerAlpha),
        payload: { text: 'nope' },
      });
      expect(designDenied.statusCode).toBe(403);
      expect(designDenied.json()).toEqual({ code: 'POLICY_DENIED', message: 'The policy does not allow this action.' });
      const events = await t.platform.audit.query({ tenantId: 'alpha', type: 'authorization.denied' });
      expect(
        events.events.some(
          (e) => e.commandId === 'test.notes.create' && e.principalId === 'rita' && e.result === 'denied',
        ),
      ).toBe(true);
    });

    it('no token → 401 with WWW-Authenticate; a bad token → 401 invalid_token', async () => {
      const none = await app.inject({ method: 'GET', url: '/notes', headers: { host: 'alpha.test' } });
      expect(none.statusCode).toBe(401);
      expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
      const bad = await app.inject({ method: 'GET', url: '/notes', headers: { authorization: 'Bearer not.a.jwt' } });
      expect(bad.statusCode).toBe(401);
      expect(bad.json().error).toBe('invalid_token');
    });

    it('each command execution is audited with tenant, principal, command id, result and correlation id', async () => {
      const res = await app.inject({
        method: 'POST',
        url: '/notes',
        headers: { ...auth(adminAlpha), 'x-correlation-id': 'corr-123' },
        payload: { text: 'audited' },
      });
      expect(res.headers['x-correlation-id']).toBe('corr-123');
      const { events } = await t.platform.audit.query({ tenantId: 'alpha', commandId: 'test.notes.create' });
      const event = events.find((e) => e.correlationId === 'corr-123');
      expect(event).toMatchObject({
        tenantId: 'alpha',
        principalId: 'alice',
        result: 'success',
        type: 'command.executed',
        businessIds: { noteId: res.json().id },
      });
    });
  });

  describe('errors', () => {
    it('validation failures name the field, in each envelope', async () => {
      const oauth = await app.inject({
        method: 'POST',
        url: '/notes',
        headers: auth(adminAlpha),
        payload: { text: '' },
      });
      expect(oauth.statusCode).toBe(400);
      expect(oauth.json()).toMatchObject({ error: 'invalid_request', field: 'text' });
      const design = await app.inject({
        method: 'POST',
        url: '/api/v1/design-notes',
        headers: auth(adminAlpha),
        payload: {},
      });
      expect(design.statusCode).toBe(400);
      expect(design.json()).toMatchObject({ code: 'ILLEGAL_ARGUMENT_ERROR', field: 'text' });
      const missing = await app.inject({
        method: 'GET',
        url: '/api/v1/design-notes/00000000-0000-4000-8000-000000000000',
        headers: auth(adminAlpha),
      });
      expect(missing.json()).toEqual({ code: 'NOT_FOUND_ERROR', message: 'No such note.' });
    });

    it('malformed JSON, a wrong content type, an oversized body and prototype poisoning are 4xx', async () => {
      const h = { ...auth(adminAlpha), 'content-type': 'application/json' };
      expect((await app.inject({ method: 'POST', url: '/notes', headers: h, payload: '{"text":' })).statusCode).toBe(
        400,
      );
      expect(
        (
          await app.inject({
            method: 'POST',
            url: '/notes',
            headers: { ...auth(adminAlpha), 'content-type': 'text/xml' },
            payload: '<a/>',
          })
        ).statusCode,
      ).toBe(415);
      expect(
        (
          await app.inject({
            method: 'POST',
            url: '/notes',
            headers: h,
            payload: JSON.stringify({ text: 'x'.repeat(2_000_000) }),
          })
        ).statusCode,
      ).toBe(413);
      expect(
        (await app.inject({ method: 'POST', url: '/notes', headers: h, payload: '{"text":"a","__proto__":{"x":1}}' }))
          .statusCode,
      ).toBe(400);
      const invalidUtf8 = Buffer.concat([Buffer.from('{"text":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
      expect(
        (await app.inject({ method: 'POST', url: '/notes', headers: h, payload: invalidUtf8 })).statusCode,
      ).toBeLessThan(500);
    });

    it('an unexpected failure answers a generic 500 server_error with nothing of the cause', async () => {
      const res = await app.inject({ method: 'GET', url: '/notes-explode', headers: auth(adminAlpha) });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({
        error: 'server_error',
        error_description: 'The server could not complete the request.',
      });
      expect(res.body).not.toMatch(/SELECT|hunter2|stack|at /);
      const design = await app.inject({
        method: 'GET',
        url: '/api/v1/design-notes-explode',
        headers: auth(adminAlpha),
      });
      expect(design.json()).toEqual({ code: 'UNKNOWN_ERROR', message: 'The server could not complete the request.' });
    });

    it('an unknown path is 404 in the envelope', async () => {
      const res = await app.inject({ method: 'GET', url: '/nothing-here' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: 'not_found' });
    });
  });

  describe('logs', () => {
    it('never carry tokens, secrets or claims', async () => {
      const secret = 'sup3r-s3cret-value';
      await app.inject({
        method: 'POST',
        url: `/notes?code=authcode-xyz&state=abc`,
        headers: { ...auth(adminAlpha), cookie: `session=${secret}` },
        payload: { text: 'log-me-not', client_secret: secret },
      });
      await app.inject({ method: 'GET', url: '/notes-explode', headers: auth(adminAlpha) });
      const text = t.logs.text;
      expect(text).not.toContain(adminAlpha);
      expect(text).not.toContain(adminAlpha.split('.')[2]!);
      expect(text).not.toContain(secret);
      expect(text).not.toContain('authcode-xyz');
      const completed = t.logs
        .records()
        .find((r) => r.msg === 'request completed' && r.route === '/notes' && r.method === 'POST');
      expect(completed).toMatchObject({ tenant_id: 'alpha', principal_id: 'alice' });
      expect(completed).toHaveProperty('correlation_id');
      expect(completed).toHaveProperty('trace_id');
      expect(completed).toHaveProperty('span_id');
    });
  });

  describe('operational endpoints', () => {
    it('health, ready, version and metrics answer on the role port without a tenant', async () => {
      expect(
        (await app.inject({ method: 'GET', url: '/health', headers: { host: 'unknown.example' } })).json(),
      ).toEqual({ status: 'ok' });
      const ready = await app.inject({ method: 'GET', url: '/ready' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json().checks).toMatchObject({
        database: { ok: true },
        keys: { ok: true },
        tenants: { ok: true },
        jobs: { ok: true },
      });
      expect(Object.keys((await app.inject({ method: 'GET', url: '/version' })).json())).toEqual(
        expect.arrayContaining(['version', 'revision', 'builtAt', 'baseLibraries']),
      );
      const metrics = await app.inject({ method: 'GET', url: '/metrics' });
      expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
      expect(metrics.body).toContain('http_request_duration_seconds_bucket');
      expect(metrics.body).toMatch(/command_executions_total\{command_id="test.notes.create",result="success"\} \d+/);
      expect(metrics.body).toContain('process_cpu_user_seconds_total');
    });

    it('publishes an OpenAPI 3 document generated from the route schemas', async () => {
      const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
      expect(doc.openapi).toMatch(/^3\./);
      expect(doc.paths['/notes'].post.requestBody.content['application/json'].schema.properties.text).toBeDefined();
      expect(doc.paths['/health']).toBeUndefined();
    });
  });

  describe('rate limiting', () => {
    it('answers 429 rate_limited with an integer Retry-After once a client is over its limit', async () => {
      const limited = await createRoleApp(t.platform, { role: 'limited', title: 'Limited', family: 'oauth' });
      t.platform.config.rateLimit.requestsPerWindow = 3;
      try {
        registerNotesRoutes(limited, t.platform, '/notes', 'oauth');
        const token = await issuer.sign({ sub: 'svc', azp: 'client-x', tenant_id: 'alpha' });
        const codes: number[] = [];
        let last;
        await roomInRateLimitWindow(t.platform.config.rateLimit.windowSeconds);
        for (let i = 0; i < 5; i++) {
          last = await limited.inject({ method: 'GET', url: '/notes', headers: auth(token) });
          codes.push(last.statusCode);
        }
        expect(codes).toEqual([200, 200, 200, 429, 429]);
        expect(last!.json()).toMatchObject({ error: 'rate_limited' });
        expect(last!.headers['retry-after']).toMatch(/^[1-9]\d*$/);
        // Another client is not affected.
        const other = await issuer.sign({ sub: 'svc2', azp: 'client-y', tenant_id: 'alpha' });
        expect((await limited.inject({ method: 'GET', url: '/notes', headers: auth(other) })).statusCode).toBe(200);
      } finally {
        t.platform.config.rateLimit.requestsPerWindow = 1000;
        await limited.close();
      }
    });
  });
});
