import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { decodeJwt } from 'jose';
import { ConfigError } from '@tessera/platform';
import { LogCapture } from '@tessera/platform/testing';
import { loadServerConfig, startServer, type RunningServer } from '../src/index.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'tessera-server-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Issue 2, "How it must show": start on embedded defaults, every port answers, data survives a restart. */
describe('server start on embedded defaults', () => {
  it('starts every role (health on role ports, the operational endpoints on the management listener), and data survives a restart', async () => {
    const dir = tempDir();
    const config = () => loadServerConfig({ env: { DATA_DIR: dir, NODE_ENV: 'development' } });
    const logs = new LogCapture();
    let server: RunningServer | undefined = await startServer(config(), { ephemeralPorts: true, logDestination: logs });
    try {
      expect([...server.apps.keys()].sort()).toEqual([
        'bridge',
        'designs',
        'issuance',
        'management',
        'parties',
        'portal',
        'signing',
        'status-lists',
        'token-external',
        'token-internal',
      ]);
      // Role listeners face the gateway: /health only (issue 13 §3).
      for (const [name, { url }] of server.apps) {
        if (name === 'management') continue;
        expect((await fetch(`${url}/health`)).status).toBe(200);
        for (const path of ['/ready', '/version', '/metrics', '/api/v1/audit/events'])
          expect((await fetch(`${url}${path}`)).status).toBe(404);
      }
      // 000 §4.5: the bridge's /health carries its readiness as booleans.
      expect(await (await fetch(`${server.apps.get('bridge')!.url}/health`)).json()).toMatchObject({
        status: 'ok',
        checks: { database: true, keys: true, jobs: true },
      });
      // The management listener, on loopback, serves the operational endpoints of every role and the audit API.
      const management = server.apps.get('management')!.url;
      expect(new URL(management).hostname).toBe('127.0.0.1');
      expect((await fetch(`${management}/health`)).status).toBe(200);
      expect((await fetch(`${management}/ready`)).status).toBe(200);
      expect(await (await fetch(`${management}/version`)).json()).toHaveProperty('version');
      const metrics = await fetch(`${management}/metrics`);
      expect(metrics.headers.get('content-type')).toMatch(/text\/plain/);
      expect(await metrics.text()).toContain('http_requests_total');
      expect((await fetch(`${management}/api/v1/audit/events?tenant=demo`)).status).toBe(401);
      expect((await fetch(`${management}/api/v1/webhooks/deliveries`)).status).toBe(401);
      expect(await (await fetch(`${server.apps.get('portal')!.url}/api/health`)).json()).toEqual({ status: 'ok' });
      // Development defaults are announced in the log.
      const announced = logs
        .records()
        .filter((r) => r.msg === 'DEVELOPMENT DEFAULT IN USE')
        .map((r) => String(r.development_default));
      expect(announced.some((d) => d.includes('embedded PGlite'))).toBe(true);
      expect(announced.some((d) => d.includes('master key'))).toBe(true);
      expect(announced.some((d) => d.includes('demo tenant'))).toBe(true);
      expect(announced.some((d) => d.includes('"tessera-admin"'))).toBe(true);
      // The development administrator: a client_credentials token carrying the demo tenant's administrator role.
      const adminToken = await fetch(`${server.apps.get('token-internal')!.url}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from('tessera-admin:tessera-admin-dev-secret').toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      });
      expect(adminToken.status).toBe(200);
      const adminClaims = decodeJwt(((await adminToken.json()) as { access_token: string }).access_token);
      expect(adminClaims).toMatchObject({ roles: ['tenant-admin'], tenant_id: 'demo', client_id: 'tessera-admin' });
      // Discovery publishes the acr values tokens carry, the embedded provider's among them (issue 14 §8).
      const discovery = (await (
        await fetch(`${server.apps.get('token-external')!.url}/.well-known/openid-configuration`)
      ).json()) as { acr_values_supported: string[] };
      expect(discovery.acr_values_supported).toEqual(
        expect.arrayContaining(['urn:tessera:oid4vp:vp', 'urn:tessera:dev-idp:password']),
      );
      // Write something durable: an audit event and a signing key.
      await server.platform.audit.append({
        tenantId: 'demo',
        type: 'test.persisted',
        result: 'success',
        businessIds: { marker: 'restart-check' },
      });
      await server.platform.keys.ensure('test:persisted', 'ES256');
      const kid = (await server.platform.keys.publicJwk('test:persisted')).kid;
      await server.close();
      server = undefined;

      server = await startServer(config(), { ephemeralPorts: true, logDestination: new LogCapture() });
      const { events } = await server.platform.audit.query({ tenantId: 'demo', type: 'test.persisted' });
      expect(events.map((e) => e.businessIds.marker)).toEqual(['restart-check']);
      // The generated master key was reused: the stored private key still decrypts and signs.
      expect((await server.platform.keys.publicJwk('test:persisted')).kid).toBe(kid);
      await expect(server.platform.keys.sign('test:persisted', new Uint8Array([1, 2, 3]))).resolves.toHaveProperty(
        'signature',
      );
    } finally {
      await server?.close();
    }
  }, 120_000); // two starts on a fresh embedded database

  it('starts only the roles it is given', async () => {
    const server = await startServer(loadServerConfig({ env: { DATA_DIR: tempDir(), ROLES: 'bridge' } }), {
      ephemeralPorts: true,
      logDestination: new LogCapture(),
    });
    try {
      expect([...server.apps.keys()]).toEqual(['bridge', 'management']);
    } finally {
      await server.close();
    }
  });

  it('refuses development defaults under NODE_ENV=production', async () => {
    const config = loadServerConfig({ env: { NODE_ENV: 'production', DATA_DIR: tempDir() } });
    await expect(startServer(config, { ephemeralPorts: true, logDestination: new LogCapture() })).rejects.toThrow(
      ConfigError,
    );
    await expect(startServer(config, { ephemeralPorts: true, logDestination: new LogCapture() })).rejects.toThrow(
      /database\.url/,
    );
  });

  it('under NODE_ENV=production, refuses a public URL that is not https, except on a loopback host', async () => {
    const production = (overrides: Record<string, unknown>) =>
      loadServerConfig({
        env: { NODE_ENV: 'production', DATABASE_URL: 'postgres://127.0.0.1:1/none', MASTER_KEY: 'A'.repeat(43) + '=' },
        overrides,
      });
    const refusal = (overrides: Record<string, unknown>) =>
      startServer(production(overrides), { ephemeralPorts: true, logDestination: new LogCapture() }).then(
        () => null,
        (error: unknown) => error,
      );
    for (const [overrides, key] of [
      [{ tokenService: { issuer: 'http://login.example.org' } }, 'tokenService.issuer'],
      [{ tokenService: { tenantIssuers: { beta: 'http://beta.example.org' } } }, 'tokenService.tenantIssuers.beta'],
      [{ bridge: { publicBaseUrl: 'http://wallet.example.org' } }, 'bridge.publicBaseUrl'],
      [{ portal: { publicUrl: 'http://10.0.0.8:3000' } }, 'portal.publicUrl'],
    ] as const) {
      const error = await refusal(overrides);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).key).toBe(key);
      expect((error as ConfigError).message).toMatch(/https/);
    }
  });

  it('stops the start with a message that names the bad key', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'apps/server/src/main.ts'], {
      cwd: join(import.meta.dirname, '../../..'),
      env: { ...process.env, DATABASE_MAX_POOL_SIZE: 'many', DATA_DIR: tempDir() },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('database.maxPoolSize');
  });
});
