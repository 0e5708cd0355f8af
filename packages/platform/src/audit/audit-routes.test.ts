import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRoleApp, type RoleApp } from '../http/create-app.js';
import {
  DATABASE_KINDS,
  createTestPlatform,
  startTestIssuer,
  type TestIssuer,
  type TestPlatform,
} from '../testing/index.js';
import type { AuditEvent } from './audit-log.js';
import { READ_AUDIT_EVENTS, registerAuditRoutes } from './audit-routes.js';

const URL_ = '/api/v1/audit/events';

describe.each(DATABASE_KINDS)('GET /api/v1/audit/events (%s)', (kind) => {
  let t: TestPlatform;
  let app: RoleApp;
  let issuer: TestIssuer;
  let partner: TestIssuer;
  let platformAdmin: string;
  let tenantAdmin: string;

  beforeAll(async () => {
    issuer = await startTestIssuer();
    partner = await startTestIssuer();
    t = await createTestPlatform(kind, {
      overrides: {
        auth: {
          issuers: [
            // The deployment's own issuer, and a partner authorization server trusted for tenant alpha only.
            { issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: issuer.audience, tenants: 'any', roles: 'any' },
            { issuer: partner.issuer, jwksUri: partner.jwksUri, audience: partner.audience, tenants: ['alpha'] },
          ],
        },
        rateLimit: { enabled: false },
        build: { version: '9.8.7' },
      },
    });
    await t.platform.tenants.ensure({ id: 'alpha', displayName: 'Alpha' });
    await t.platform.tenants.ensure({ id: 'beta', displayName: 'Beta' });
    await t.platform.tenants.load();
    app = await createRoleApp(t.platform, { role: 'test', title: 'Test API', family: 'oauth' });
    registerAuditRoutes(app, t.platform);
    await app.ready();
    platformAdmin = await issuer.sign({ sub: 'root', roles: ['platform-admin'] });
    tenantAdmin = await issuer.sign({ sub: 'alice', tenant_id: 'alpha', roles: ['tenant-admin'] });
    for (let i = 0; i < 12; i++) {
      await t.platform.audit.append({
        tenantId: i % 2 === 0 ? 'alpha' : 'beta',
        type: 'command.executed',
        commandId: 'test.things.create',
        principalId: `user-${i}`,
        result: i % 3 === 0 ? 'failure' : 'success',
        correlationId: `seed-${i}`,
        businessIds: { thingId: `t-${i}` },
        details: { text: 'a=b|c' },
      });
    }
  });

  afterEach(() => vi.restoreAllMocks());
  afterAll(async () => {
    await app?.close();
    await t?.close();
    await issuer?.close();
    await partner?.close();
  });

  const get = (query: string, token?: string) =>
    app.inject({ method: 'GET', url: `${URL_}${query}`, headers: token ? { authorization: `Bearer ${token}` } : {} });

  async function readsOf(tenantId: string): Promise<AuditEvent[]> {
    const page = await t.platform.audit.query({ tenantId, commandId: READ_AUDIT_EVENTS, limit: 500 });
    return page.events;
  }

  it('answers 401 with a Bearer challenge without a token', async () => {
    const res = await get('?tenant=alpha');
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.json()).toMatchObject({ error: 'invalid_token' });
    expect((await readsOf('alpha')).some((e) => e.type === 'authorization.denied' && e.principalId === null)).toBe(
      true,
    );
  });

  it('refuses the platform administrator role or a foreign tenant from a partner issuer, as an authentication event', async () => {
    for (const claims of [
      { sub: 'mallory', roles: ['platform-admin'] },
      { sub: 'mallory', tenant_id: 'beta', roles: ['tenant-admin'] },
    ]) {
      const res = await get('?tenant=beta', await partner.sign(claims));
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ error: 'invalid_token' });
    }
    await expect
      .poll(async () =>
        (await t.platform.audit.query({ tenantId: 'demo', type: 'authentication.failed', limit: 50 })).events.map(
          (e) => e.details.reason,
        ),
      )
      .toEqual(expect.arrayContaining(['issuer_role_not_trusted', 'issuer_tenant_not_trusted']));
    // The same claims from the deployment's own issuer are accepted.
    expect((await get('?tenant=beta', await issuer.sign({ sub: 'root', roles: ['platform-admin'] }))).statusCode).toBe(
      200,
    );
  });

  it('answers 403 to a principal without the platform administrator role, and records the denial', async () => {
    const res = await get('?tenant=alpha', tenantAdmin);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'access_denied' });
    const denial = (await readsOf('alpha')).find((e) => e.principalId === 'alice');
    expect(denial).toMatchObject({
      type: 'authorization.denied',
      result: 'denied',
      details: { reason: 'not_platform_admin' },
    });
  });

  it('returns one tenant’s events as JSON and records the read in that tenant’s chain', async () => {
    const res = await get('?tenant=alpha&type=command.executed&command=test.things.create', platformAdmin);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json() as { data: AuditEvent[]; pagination: { nextCursor: string | null } };
    expect(body.data).toHaveLength(6);
    expect(body.data.every((e) => e.tenantId === 'alpha' && e.commandId === 'test.things.create')).toBe(true);
    expect(body.pagination).toEqual({ nextCursor: null });
    const read = (await readsOf('alpha')).find((e) => e.principalId === 'root');
    expect(read).toMatchObject({
      type: 'command.executed',
      result: 'success',
      details: { policy: 'platform_admin', format: 'json', returned: 6, filters: ['tenant', 'command', 'type'] },
    });
    expect(read!.correlationId).toBe(res.headers['x-correlation-id']);
    expect(await t.platform.audit.verify('alpha')).toMatchObject({ ok: true });
  });

  it('pages across all tenants with an opaque cursor', async () => {
    const seen: AuditEvent[] = [];
    let query = '?type=command.executed&command=test.things.create&limit=5';
    for (let pages = 0; pages < 10; pages++) {
      const res = await get(query, platformAdmin);
      expect(res.statusCode).toBe(200);
      const body = res.json() as { data: AuditEvent[]; pagination: { nextCursor: string | null } };
      seen.push(...body.data);
      if (!body.pagination.nextCursor) break;
      query = `?type=command.executed&command=test.things.create&limit=5&cursor=${body.pagination.nextCursor}`;
    }
    expect(seen).toHaveLength(12);
    expect(new Set(seen.map((e) => e.correlationId)).size).toBe(12);
  });

  it('filters by principal, result and time range', async () => {
    const byPrincipal = (await get('?principal=user-3', platformAdmin)).json() as { data: AuditEvent[] };
    expect(byPrincipal.data.map((e) => e.correlationId)).toEqual(['seed-3']);
    const failures = (await get('?result=failure&command=test.things.create', platformAdmin)).json() as {
      data: AuditEvent[];
    };
    expect(failures.data.map((e) => e.correlationId).sort()).toEqual(['seed-0', 'seed-3', 'seed-6', 'seed-9']);
    const future = (await get('?from=2999-01-01T00:00:00Z', platformAdmin)).json() as { data: AuditEvent[] };
    expect(future.data).toEqual([]);
    const past = (await get('?to=2000-01-01T00:00:00Z', platformAdmin)).json() as { data: AuditEvent[] };
    expect(past.data).toEqual([]);
  });

  it('exports CEF as text lines with the next cursor in a header', async () => {
    const res = await get('?tenant=beta&command=test.things.create&format=cef&limit=4', platformAdmin);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const lines = res.body.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    for (const line of lines)
      expect(line).toMatch(/^CEF:0\|Tessera\|tessera\|9\.8\.7\|command\.executed\|test\.things\.create\|[35]\|rt=\d+ /);
    expect(lines[0]).toContain('cs5={"text":"a\\=b|c"}');
    expect(res.headers['x-next-cursor']).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('exports OCSF records', async () => {
    const res = await get('?tenant=beta&command=test.things.create&format=ocsf', platformAdmin);
    const body = res.json() as { data: Record<string, unknown>[]; pagination: { nextCursor: string | null } };
    expect(body.data).toHaveLength(6);
    expect(body.data[0]).toMatchObject({
      class_uid: 6003,
      category_uid: 6,
      metadata: { product: { name: 'Tessera', version: '9.8.7' }, tenant_uid: 'beta' },
    });
  });

  /** Executions of the read counted by the command bus, by result. */
  async function executions(result: string): Promise<number> {
    const metric = await t.platform.metrics.commandExecutions.get();
    return (
      metric.values.find((v) => v.labels.command_id === READ_AUDIT_EVENTS && v.labels.result === result)?.value ?? 0
    );
  }

  it('reads through the command bus: the policy decides platform.audit.read-events and the bus counts the read', async () => {
    const before = await executions('success');
    expect((await get('?tenant=alpha&limit=1', platformAdmin)).statusCode).toBe(200);
    expect((await get('?limit=1', platformAdmin)).statusCode).toBe(200);
    expect(await executions('success')).toBe(before + 2);

    // A policy that suspends the read: the bus refuses it, records the denial in the named tenant's chain, and a read
    // across every tenant, which belongs to no chain, is refused without an event (and without a 5xx).
    const decide = t.platform.policy.decide.bind(t.platform.policy);
    const asked: string[] = [];
    vi.spyOn(t.platform.policy, 'decide').mockImplementation((request) => {
      if (request.action !== READ_AUDIT_EVENTS) return decide(request);
      asked.push(request.tenantId);
      return { allow: false, reason: 'audit_read_suspended' };
    });
    const denied = await executions('denied');
    const suspended = await get('?tenant=beta', platformAdmin);
    expect(suspended.statusCode).toBe(403);
    expect(suspended.json()).toMatchObject({ error: 'access_denied' });
    expect((await get('', platformAdmin)).statusCode).toBe(403);
    expect(asked).toEqual(['beta', '_platform']);
    expect(await executions('denied')).toBe(denied + 2);
    vi.restoreAllMocks();
    const denials = (await readsOf('beta')).filter((e) => e.details.reason === 'audit_read_suspended');
    expect(denials).toHaveLength(1);
    expect(denials[0]).toMatchObject({ type: 'authorization.denied', principalId: 'root', result: 'denied' });
    expect(await t.platform.audit.verify('beta')).toMatchObject({ ok: true });
  });

  it('refuses invalid parameters and unknown tenants', async () => {
    for (const query of [
      '?result=maybe',
      '?from=yesterday',
      '?limit=501',
      '?limit=0',
      '?format=xml',
      '?tenant=Not_A_Tenant',
      '?unknown=1',
    ]) {
      const res = await get(query, platformAdmin);
      expect(res.statusCode, query).toBe(400);
      expect(res.json(), query).toMatchObject({ error: 'invalid_request' });
    }
    const badCursor = await get('?cursor=bm90LWEtY3Vyc29y', platformAdmin);
    expect(badCursor.statusCode).toBe(400);
    expect(badCursor.json()).toMatchObject({ error: 'invalid_request', field: 'cursor' });
    const unknown = await get('?tenant=nobody', platformAdmin);
    expect(unknown.statusCode).toBe(404);
  });
});
