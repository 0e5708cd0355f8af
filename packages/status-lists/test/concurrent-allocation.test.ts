import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import {
  createPlatform,
  createRoleApp,
  loadConfig,
  PlatformConfigSchema,
  type Platform,
  type RoleApp,
} from '@tessera/platform';
import { createPostgresTestDatabase, LogCapture, startTestIssuer, type TestIssuer } from '@tessera/platform/testing';
import { registerStatusListsRoutes } from '../src/index.js';
import { BASE_URL, listBody, migrations, TENANT, testConfig } from './support.js';

/**
 * Issue 16 §3: allocation is unique under concurrency across replicas. Two platforms (as two processes would have:
 * their own pools, key managers and caches) over one PostgreSQL database; 1,000 allocations at once, half through
 * each, on a list of 600 entries, so the series rolls over while they run. Every (list, index) is handed out once.
 */
describe('1,000 concurrent allocations on two replicas over one PostgreSQL', () => {
  let db: { url: string; drop(): Promise<void> };
  let issuer: TestIssuer;
  const replicas: { platform: Platform; app: RoleApp }[] = [];
  let token: string;
  const config = testConfig();

  beforeAll(async () => {
    db = await createPostgresTestDatabase();
    issuer = await startTestIssuer();
    const masterKey = randomBytes(32).toString('base64');
    for (let i = 0; i < 2; i++) {
      const platformConfig = loadConfig(PlatformConfigSchema, {
        env: {},
        overrides: {
          profile: 'test',
          database: { url: db.url, maxPoolSize: 5 },
          keys: { masterKey },
          tenancy: { seedDemoTenant: true },
          auth: { issuers: [{ issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: issuer.audience }] },
          rateLimit: { enabled: false },
        },
      });
      const platform = await createPlatform(platformConfig, { migrations, logDestination: new LogCapture() });
      const app = await createRoleApp(platform, { role: 'status-lists', title: 'status-lists', family: 'oauth' });
      await registerStatusListsRoutes(app, platform, { config });
      await app.ready();
      replicas.push({ platform, app });
    }
    token = await issuer.sign({ sub: 'alice', tenant_id: TENANT, roles: ['tenant-admin'] }, { expiresInSeconds: 3600 });
  });
  afterAll(async () => {
    for (const r of replicas) {
      await r.app.close();
      await r.platform.close();
    }
    await issuer?.close();
    await db?.drop();
  });

  it('hands out every index once, rolling over when the list is full', async () => {
    const created = await replicas[0]!.app.inject({
      method: 'POST',
      url: '/vc/status-lists',
      headers: { authorization: `Bearer ${token}` },
      payload: listBody('shared', { length: 600 }),
    });
    expect(created.statusCode).toBe(200);
    const responses = await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        replicas[i % 2]!.app.inject({
          method: 'POST',
          url: '/vc/status-lists/shared/entries',
          headers: { authorization: `Bearer ${token}` },
        }),
      ),
    );
    expect(responses.map((r) => r.statusCode).filter((s) => s !== 201)).toEqual([]);
    const entries = responses.map((r) => r.json() as { listId: string; index: number; uri: string });
    const keys = new Set(entries.map((e) => `${e.listId}#${e.index}`));
    expect(keys.size).toBe(1000);
    const first = entries.filter((e) => e.listId === 'shared').map((e) => e.index);
    const second = entries.filter((e) => e.listId === 'shared~2').map((e) => e.index);
    expect(first.length).toBe(600);
    expect(second.length).toBe(400);
    expect(first.sort((a, b) => a - b)).toEqual([...Array(600).keys()]);
    expect(second.every((i) => i >= 0 && i < 600)).toBe(true);
    expect(entries.find((e) => e.listId === 'shared~2')!.uri).toBe(`${BASE_URL}/status-lists/shared~2`);
  });

  it('applies concurrent changes of neighbouring entries through both replicas: none is lost', async () => {
    const headers = { authorization: `Bearer ${token}` };
    const apps = replicas.map((r) => r.app) as [RoleApp, RoleApp];
    const created = await apps[0].inject({
      method: 'POST',
      url: '/vc/status-lists',
      headers,
      payload: listBody('neighbours', { statusPurpose: 'suspension', oauthStatusList: { bitsPerStatus: 2 } }),
    });
    expect(created.statusCode).toBe(200);
    const allocated = await Promise.all(
      Array.from({ length: 48 }, (_, i) =>
        apps[i % 2].inject({ method: 'POST', url: '/vc/status-lists/neighbours/entries', headers }),
      ),
    );
    const indexes = allocated.map((r) => (r.json() as { index: number }).index);
    // 48 entries of 2 bits in 16 bytes: most share a byte with another, changed through the other replica.
    const put = (index: number, i: number, status: string) =>
      apps[i % 2].inject({
        method: 'PUT',
        url: `/vc/status-lists/neighbours/entries/${index}`,
        headers,
        payload: { status },
      });
    const suspended = await Promise.all(indexes.map((index, i) => put(index, i, 'suspended')));
    expect(suspended.map((r) => r.statusCode).filter((s) => s !== 200)).toEqual([]);
    const reinstated = await Promise.all(indexes.slice(0, 24).map((index, i) => put(index, i + 1, 'valid')));
    expect(reinstated.map((r) => r.statusCode).filter((s) => s !== 200)).toEqual([]);
    for (const app of apps) {
      const published = await app.inject({ method: 'GET', url: '/status-lists/neighbours' });
      const list = getListFromStatusListJWT(published.body);
      indexes.forEach((index, i) => expect(list.getStatus(index)).toBe(i < 24 ? 0 : 2));
    }
  });

  it('plans a change on what a replica last knew of the list only while the list stands still', async () => {
    const headers = { authorization: `Bearer ${token}` };
    const [a, b] = replicas.map((r) => r.app) as [RoleApp, RoleApp];
    const created = await a.inject({
      method: 'POST',
      url: '/vc/status-lists',
      headers,
      payload: listBody('alternating', { statusPurpose: 'suspension', oauthStatusList: { bitsPerStatus: 2 } }),
    });
    expect(created.statusCode).toBe(200);
    const allocate = async (app: RoleApp) =>
      (
        (await app.inject({ method: 'POST', url: '/vc/status-lists/alternating/entries', headers })).json() as {
          index: number;
        }
      ).index;
    const put = async (app: RoleApp, index: number, status: string) => {
      const response = await app.inject({
        method: 'PUT',
        url: `/vc/status-lists/alternating/entries/${index}`,
        headers,
        payload: { status },
      });
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as { previous: { status: string } }).previous.status;
    };
    const first = await allocate(a);
    expect(await put(a, first, 'suspended')).toBe('valid');
    // The other replica reinstates it: what the first one remembers (suspended) is no longer the list.
    expect(await put(b, first, 'valid')).toBe('suspended');
    // Planned on what it remembered, this change would hold already; the version check sends it to a fresh read.
    expect(await put(a, first, 'suspended')).toBe('valid');
    // An entry allocated through the other replica (allocations leave the version alone) is changed through this one.
    const second = await allocate(b);
    expect(await put(a, second, 'suspended')).toBe('valid');
    expect(await put(a, first, 'valid')).toBe('suspended');
    for (const app of [a, b]) {
      const list = getListFromStatusListJWT(
        (await app.inject({ method: 'GET', url: '/status-lists/alternating' })).body,
      );
      expect([list.getStatus(first), list.getStatus(second)]).toEqual([0, 2]);
    }
  });

  it('shows a change made on one replica to the next reads on the other, also when they share a statement', async () => {
    const headers = { authorization: `Bearer ${token}` };
    const [writer, reader] = replicas.map((r) => r.app) as [RoleApp, RoleApp];
    const created = await writer.inject({
      method: 'POST',
      url: '/vc/status-lists',
      headers,
      payload: listBody('visible', { length: 64 }),
    });
    expect(created.statusCode).toBe(200);
    const indexes: number[] = [];
    for (let i = 0; i < 8; i++) {
      const entry = await writer.inject({ method: 'POST', url: '/vc/status-lists/visible/entries', headers });
      indexes.push((entry.json() as { index: number }).index);
    }
    const read = async () => {
      const response = await reader.inject({ method: 'GET', url: '/status-lists/visible' });
      expect(response.statusCode).toBe(200);
      return getListFromStatusListJWT(response.body);
    };
    // The reader has a signed form in memory before the changes; each change must still show on its next reads.
    await read();
    for (const index of indexes) {
      const changed = await writer.inject({
        method: 'PUT',
        url: `/vc/status-lists/visible/entries/${index}`,
        headers,
        payload: { status: 'invalid' },
      });
      expect(changed.statusCode).toBe(200);
      const lists = await Promise.all(Array.from({ length: 10 }, read));
      for (const list of lists) expect(list.getStatus(index)).toBe(1);
    }
  });
});
