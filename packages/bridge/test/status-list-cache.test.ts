import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, platformMigrations } from '@tessera/platform';
import { DATABASE_KINDS, openTestDatabase, type TestDatabase } from '@tessera/platform/testing';
import { bridgeMigrations } from '../src/index.js';
import { CachedStatusListSource, type StatusListFetcher } from '../src/outbound/status-list-source.js';
import { statusListCacheStore } from '../src/storage/status-list-cache.js';
import { newKey, tokenStatusList } from './support/credentials.js';

/**
 * The status-list cache shared by replicas (Token Status List §8.3) on both engines: one fetch serves every
 * replica until the list's expiry (the earliest of its ttl, its exp and maxTtlSeconds); after that a fetch must
 * succeed, or the check fails closed.
 */
describe.each(DATABASE_KINDS)('status-list cache (%s)', (kind) => {
  let t: TestDatabase;
  let server: Server;
  let origin: string;
  let served = 0;
  let up = true;
  let body = '';
  const clock = new ManualClock(new Date());
  const options = (allow: string[]) => ({
    minTtlSeconds: 10,
    maxTtlSeconds: 600,
    fetchTimeoutSeconds: 2,
    maxResponseBytes: 100_000,
    allowPrivateNetworkOrigins: allow,
  });

  beforeAll(async () => {
    t = await openTestDatabase(kind, [...platformMigrations, ...bridgeMigrations]);
    server = createServer((req, res) => {
      served++;
      if (!up) {
        res.statusCode = 503;
        res.end();
        return;
      }
      const path = req.url ?? '/';
      const type = path === '/as-jwt' ? 'application/jwt' : path === '/as-html' ? 'text/html' : null;
      res.setHeader('content-type', type ?? (path === '/as-vc' ? 'application/vc+jwt' : 'application/statuslist+jwt'));
      if (path.startsWith('/max-age')) res.setHeader('cache-control', 'public, max-age=20');
      if (path === '/no-cache') res.setHeader('cache-control', 'no-cache');
      if (path === '/expires') res.setHeader('expires', new Date(clock.now().getTime() + 45_000).toUTCString());
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const issuer = await newKey();
    // ttl 300 s < maxTtlSeconds 600 s: the list's own ttl bounds the cache.
    body = await tokenStatusList(issuer, `${origin}/list`, [0, 1]);
  });

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await t?.close();
  });

  it('fetches once, serves replicas from the shared table, refetches after the ttl and fails closed when the list is down', async () => {
    const replicaA = new CachedStatusListSource({ db: t.db, clock, options: options([origin]) });
    const replicaB = new CachedStatusListSource({ db: t.db, clock, options: options([origin]) });
    const uri = `${origin}/list`;
    expect(await replicaA.token(uri)).toBe(body);
    expect(await replicaA.token(uri)).toBe(body);
    expect(await replicaB.token(uri)).toBe(body);
    expect(served).toBe(1);
    const row = await t.db.withPlatform((sql) => statusListCacheStore.get(sql, uri));
    expect(row!.expiresAt.getTime() - row!.fetchedAt.getTime()).toBe(300_000);

    clock.advance(301);
    expect(await replicaB.token(uri)).toBe(body);
    expect(served).toBe(2);

    clock.advance(301);
    up = false;
    await expect(replicaA.token(uri)).rejects.toThrow(/503/);
    await expect(replicaB.token(uri)).rejects.toThrow();
    up = true;
  });

  it('refuses a loopback list URL that is not an allowed fixture origin, without connecting', async () => {
    const before = served;
    const source = new CachedStatusListSource({ db: t.db, clock, options: options([]) });
    await expect(source.token(`${origin}/list2`)).rejects.toThrow();
    expect(served).toBe(before);
  });

  /** A fetcher over the real HTTP client that reports the response headers (the SSRF-safe fetch reports none). */
  const fetchWithHeaders: StatusListFetcher = async (uri, fetchOptions) => {
    const res = await fetch(uri, { headers: { accept: fetchOptions.accept }, redirect: 'manual' });
    return {
      status: res.status,
      contentType: res.headers.get('content-type') ?? '',
      body: await res.text(),
      headers: Object.fromEntries(res.headers),
    };
  };
  const lifetimeOf = async (uri: string) => {
    const row = await t.db.withPlatform((sql) => statusListCacheStore.get(sql, uri));
    return (row!.expiresAt.getTime() - row!.fetchedAt.getTime()) / 1000;
  };

  it('honours Cache-Control max-age and no-cache, and Expires, within minTtlSeconds..maxTtlSeconds', async () => {
    const source = new CachedStatusListSource({ db: t.db, clock, options: options([origin]), fetch: fetchWithHeaders });
    await source.token(`${origin}/max-age`);
    expect(await lifetimeOf(`${origin}/max-age`)).toBe(20);
    await source.token(`${origin}/no-cache`);
    expect(await lifetimeOf(`${origin}/no-cache`)).toBe(10);
    await source.token(`${origin}/expires`);
    expect(await lifetimeOf(`${origin}/expires`)).toBeGreaterThanOrEqual(44);
    expect(await lifetimeOf(`${origin}/expires`)).toBeLessThanOrEqual(45);

    // maxTtlSeconds bounds the list's ttl (300 s): the delay until a revocation is seen.
    const short = new CachedStatusListSource({
      db: t.db,
      clock,
      options: { ...options([origin]), maxTtlSeconds: 30 },
      fetch: fetchWithHeaders,
    });
    await short.token(`${origin}/short-max`);
    expect(await lifetimeOf(`${origin}/short-max`)).toBe(30);
    const before = served;
    clock.advance(31);
    await short.token(`${origin}/short-max`);
    expect(served).toBe(before + 1);
  });

  it('the SSRF-safe fetch itself reports Cache-Control: honoured without a replaced fetcher', async () => {
    const source = new CachedStatusListSource({ db: t.db, clock, options: options([origin]) });
    await source.token(`${origin}/max-age?direct`);
    expect(await lifetimeOf(`${origin}/max-age?direct`)).toBe(20);
  });

  it('refuses a list served as another media type than statuslist+jwt or vc+jwt, and caches nothing', async () => {
    const source = new CachedStatusListSource({ db: t.db, clock, options: options([origin]) });
    for (const path of ['/as-jwt', '/as-html'])
      await expect(source.token(`${origin}${path}`)).rejects.toThrow(/application\/statuslist\+jwt/);
    expect(await t.db.withPlatform((sql) => statusListCacheStore.get(sql, `${origin}/as-jwt`))).toBeNull();
    expect(await source.token(`${origin}/as-vc`)).toBe(body);
  });
});
