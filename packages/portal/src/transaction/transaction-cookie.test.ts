import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, platformMigrations, withSymmetricKeysMigration } from '@tessera/platform';
import { createTestPlatform, DATABASE_KINDS, type TestPlatform } from '@tessera/platform/testing';
import { resolvePortalOptions } from '../options.js';
import type { LoginTransaction } from './login-transaction.js';
import { readCookie, TransactionCookies } from './transaction-cookie.js';

/** The login transaction in a cookie signed under the platform's HS256 key (on both engines: the key lives in the database). */
describe.each(DATABASE_KINDS)('transaction cookie (%s)', (kind) => {
  let t: TestPlatform;
  const clock = new ManualClock(new Date('2030-01-01T10:00:00Z'));
  const now = () => Math.floor(clock.now().getTime() / 1000);

  beforeAll(async () => {
    t = await createTestPlatform(kind, { migrations: withSymmetricKeysMigration(platformMigrations) });
  });
  afterAll(async () => t?.close());

  const cookies = (portalPublicUrl = 'http://127.0.0.1:3000') =>
    new TransactionCookies(
      resolvePortalOptions({
        tokenServiceUrl: 'http://127.0.0.1:8080',
        tokenServicePublicUrl: 'http://127.0.0.1:8080',
        bridgeUrl: 'http://127.0.0.1:8090',
        portalPublicUrl,
        serviceCredentials: { clientId: 'portal', clientSecret: 's' },
        keys: t.platform.keys,
        clock,
      }),
    );
  const tx = (over: Partial<LoginTransaction> = {}): LoginTransaction => ({
    id: '2b7c2f3e-8d1a-4c5e-9f00-1a2b3c4d5e6f',
    tenantId: 'demo',
    sessionId: '7d2f1e0c-3b4a-4c5d-8e6f-0a1b2c3d4e5f',
    params: { client_id: 'rp', state: 'st' },
    createdAt: now(),
    expiresAt: now() + 1800,
    ...over,
  });
  const header = (setCookie: string) => setCookie.split(';')[0]!;

  it('round trip: HttpOnly, SameSite=Lax, Max-Age of the transaction; Secure and __Host- over https', async () => {
    const c = cookies();
    const set = await c.seal(tx());
    expect(set).toMatch(/^tessera-signin=\d+\.[\w-]+\.[\w-]{43}; Path=\/; Max-Age=1800; HttpOnly; SameSite=Lax$/);
    expect(await c.open(header(set), 'demo')).toEqual(tx());
    const secure = await cookies('https://portal.example').seal(tx());
    expect(secure).toMatch(/^__Host-tessera-signin=.+; Path=\/; Max-Age=1800; HttpOnly; SameSite=Lax; Secure$/);
    expect(c.clear()).toBe('tessera-signin=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax');
  });

  it('refuses a changed payload, a changed MAC, another tenant, an expired transaction and garbage', async () => {
    const c = cookies();
    const value = header(await c.seal(tx())).slice('tessera-signin='.length);
    const [version, payload, mac] = value.split('.') as [string, string, string];
    const other = Buffer.from(JSON.stringify({ ...tx(), sessionId: '00000000-0000-4000-8000-000000000000' })).toString(
      'base64url',
    );
    expect(await c.open(`tessera-signin=${version}.${other}.${mac}`, 'demo')).toBeNull();
    expect(await c.open(`tessera-signin=${version}.${payload}.${mac.slice(0, -2)}AA`, 'demo')).toBeNull();
    expect(await c.open(`tessera-signin=${value}`, 'beta')).toBeNull();
    expect(await c.open(`tessera-signin=99.${payload}.${mac}`, 'demo')).toBeNull();
    for (const junk of [undefined, '', 'tessera-signin=', 'tessera-signin=a.b', 'tessera-signin=0.a.b', 'other=1'])
      expect(await c.open(junk, 'demo')).toBeNull();
    const short = header(await c.seal(tx({ expiresAt: now() + 60 })));
    clock.advance(61);
    expect(await c.open(short, 'demo')).toBeNull();
  });

  it('a cookie signed before a key rotation still opens (its version is in the cookie); new ones use the new version', async () => {
    const c = cookies();
    const before = header(await c.seal(tx()));
    const rotated = await t.platform.keys.rotateSymmetric('portal-login-transaction');
    const after = header(await c.seal(tx()));
    expect(after.startsWith(`tessera-signin=${rotated.version}.`)).toBe(true);
    expect(await c.open(before, 'demo')).toEqual(tx());
    expect(await c.open(after, 'demo')).toEqual(tx());
  });

  it('reads one cookie among several', () => {
    expect(readCookie('a=1; tessera-signin=x.y.z; b=2', 'tessera-signin')).toBe('x.y.z');
    expect(readCookie('a=1', 'tessera-signin')).toBeNull();
  });
});
