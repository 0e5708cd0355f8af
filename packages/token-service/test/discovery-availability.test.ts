import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPostgresTestDatabase,
  createTestPlatform,
  startTcpProxy,
  type TcpProxy,
} from '@tessera/platform/testing';
import { migrations, startTokenService, type TokenServiceHarness } from './support/harness.js';

/**
 * 000 §4.5: the token service's discovery "answers 200 when healthy", so a load balancer probing it takes a replica
 * whose database is unreachable out of rotation (issue 13 §3): 503 with Retry-After while PostgreSQL is cut, 200
 * again on its own once it is back.
 */
describe('discovery follows the database (postgres)', () => {
  let proxy: TcpProxy;
  let h: TokenServiceHarness;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const database = await createPostgresTestDatabase();
    drop = database.drop;
    proxy = await startTcpProxy('127.0.0.1', Number(new URL(database.url).port || 5432));
    const viaProxy = new URL(database.url);
    viaProxy.port = String(proxy.port);
    const t = await createTestPlatform('pglite', {
      migrations,
      overrides: { database: { url: viaProxy.toString(), connectTimeoutSeconds: 1 }, rateLimit: { enabled: false } },
    });
    h = await startTokenService({ kind: 'postgres', testPlatform: t, upstream: false });
  });
  afterAll(async () => {
    await h?.close();
    await proxy?.close();
    await drop?.();
  });

  const discovery = () => fetch(`${h.issuer}/.well-known/openid-configuration`);

  it('answers 503 with Retry-After while the database is unreachable, and 200 again once it is back', async () => {
    expect((await discovery()).status).toBe(200);
    await proxy.cut();
    let down: Response | undefined;
    // The reachability is asked at most once a second: the first answer after the cut may still be the last one.
    for (let i = 0; i < 20; i++) {
      down = await discovery();
      if (down.status !== 200) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(down!.status).toBe(503);
    expect(Number(down!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await down!.json()).toMatchObject({ error: 'temporarily_unavailable' });
    await proxy.restore();
    let status = 0;
    for (let i = 0; i < 40 && status !== 200; i++) {
      status = (await discovery()).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(200);
  });
});
