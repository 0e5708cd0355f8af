import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import {
  createPlatform,
  createRoleApp,
  loadConfig,
  platformMigrations,
  PlatformConfigSchema,
  type Platform,
  type RoleApp,
} from '../src/index.js';
import { createPostgresTestDatabase, LogCapture, startTcpProxy, type TcpProxy } from '../src/testing/index.js';

/**
 * Security checklist, faults: "Database down or pool exhausted → 503 and readiness false (never 401 or
 * active: false), and recovery on its own." The database is the real PostgreSQL server behind a TCP proxy
 * that the test cuts and restores.
 */
describe('readiness follows the database (postgres)', () => {
  let proxy: TcpProxy;
  let platform: Platform;
  let app: RoleApp;
  let bridgeLike: RoleApp;
  let gatewayFacing: RoleApp;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const created = await createPostgresTestDatabase();
    drop = created.drop;
    const target = new URL(created.url);
    proxy = await startTcpProxy('127.0.0.1', Number(target.port || 5432));
    const viaProxy = new URL(created.url);
    viaProxy.port = String(proxy.port);
    const config = loadConfig(PlatformConfigSchema, {
      env: {},
      overrides: {
        profile: 'test',
        database: { url: viaProxy.toString(), connectTimeoutSeconds: 1 },
        keys: { masterKey: randomBytes(32).toString('base64') },
        tenancy: { seedDemoTenant: true },
      },
    });
    platform = await createPlatform(config, { migrations: platformMigrations, logDestination: new LogCapture() });
    app = await createRoleApp(platform, { role: 'test', title: 'Test', family: 'oauth' });
    app.get('/data', async () =>
      platform.db
        .withTenant('demo', (sql) => sql.query('SELECT count(*)::int AS n FROM audit_events'))
        .then((r) => r.rows[0]),
    );
    await app.ready();
    bridgeLike = await createRoleApp(platform, {
      role: 'bridge',
      title: 'Bridge',
      family: 'oauth',
      operational: 'health-readiness',
    });
    gatewayFacing = await createRoleApp(platform, {
      role: 'token',
      title: 'Token',
      family: 'oauth',
      operational: 'health',
    });
  });

  afterAll(async () => {
    await bridgeLike?.close();
    await gatewayFacing?.close();
    await app?.close();
    await platform?.close();
    await proxy?.close();
    await drop?.();
  });

  it('is 200, then 503 with details while the database is unreachable, then 200 again on its own', async () => {
    expect((await app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);

    await proxy.cut();
    const down = await app.inject({ method: 'GET', url: '/ready' });
    expect(down.statusCode).toBe(503);
    expect(down.json()).toMatchObject({ status: 'not_ready', checks: { database: { ok: false } } });
    // A request that needs the database answers 503 in its envelope, never a 401 or a 200 with wrong data.
    const data = await app.inject({ method: 'GET', url: '/data' });
    expect(data.statusCode).toBe(503);
    expect(data.json()).toMatchObject({ error: 'temporarily_unavailable' });
    // Every 503 says when to retry (issue 13 §7).
    expect(Number(data.headers['retry-after'])).toBeGreaterThan(0);
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);

    await proxy.restore();
    let status = 0;
    for (let i = 0; i < 20 && status !== 200; i++) {
      status = (await app.inject({ method: 'GET', url: '/ready' })).statusCode;
      if (status !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/data' })).statusCode).toBe(200);
  });

  it('a role listener facing the gateway serves /health only; the bridge reports readiness as booleans without error text (issue 13 §3)', async () => {
    for (const path of ['/ready', '/version', '/metrics'])
      expect((await gatewayFacing.inject({ method: 'GET', url: path })).statusCode).toBe(404);
    expect((await gatewayFacing.inject({ method: 'GET', url: '/health' })).json()).toEqual({ status: 'ok' });

    const healthy = await bridgeLike.inject({ method: 'GET', url: '/health' });
    expect(healthy.statusCode).toBe(200);
    expect(healthy.json()).toEqual({ status: 'ok', checks: { database: true, keys: true, tenants: true, jobs: true } });

    await proxy.cut();
    try {
      const down = await bridgeLike.inject({ method: 'GET', url: '/health' });
      expect(down.statusCode).toBe(503);
      expect(down.json()).toMatchObject({ status: 'unavailable', checks: { database: false } });
      // Booleans only: nothing of the failure's text reaches a caller of a public port.
      expect(Object.values(down.json().checks as Record<string, unknown>).every((v) => typeof v === 'boolean')).toBe(
        true,
      );
    } finally {
      await proxy.restore();
    }
    let status = 0;
    for (let i = 0; i < 20 && status !== 200; i++) {
      status = (await bridgeLike.inject({ method: 'GET', url: '/health' })).statusCode;
      if (status !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(200);
  });
});
