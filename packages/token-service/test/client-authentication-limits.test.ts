import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { createTestPlatform } from '@tessera/platform/testing';
import { migrations, RP_SECRET, startTokenService, type TokenServiceHarness } from './support/harness.js';
import { basic } from './support/codes.js';

/** POST a form from a chosen loopback source address (the whole of 127.0.0.0/8 is this machine). */
function postFrom(
  localAddress: string,
  url: string,
  form: Record<string, string>,
  authorization: string,
): Promise<{ status: number; retryAfter: string | undefined }> {
  const body = new URLSearchParams(form).toString();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        localAddress,
        headers: {
          authorization,
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Issue 13 §2: the client-authenticating endpoints count failures per source address (and per claimed client
 * with a higher limit), successes per authenticated client; a flood of bad secrets for a client from one address
 * does not lock the real client out. With the in-process limiter the guard decides at once (peekNow, consumeNow);
 * with the shared Redis limiter (replicas) it waits for Redis's answers: both ways are run.
 */
describe.each(['memory', 'redis'] as const)('client authentication limits (pglite, %s limiter)', (limiter) => {
  let h: TokenServiceHarness;
  const introspect = (from: string, secret: string) =>
    postFrom(from, `${h.issuer}/introspect`, { token: 'not-a-token' }, basic('demo-rp', secret));

  beforeAll(async () => {
    const t = await createTestPlatform('pglite', {
      migrations,
      overrides: {
        ...(limiter === 'redis'
          ? { redis: { url: REDIS_URL, keyPrefix: `tessera-test:${randomBytes(6).toString('hex')}:` } }
          : {}),
        rateLimit: {
          enabled: true,
          requestsPerWindow: 1000,
          windowSeconds: 3600,
          failedAuthenticationsPerAddress: 5,
          failedAuthenticationsPerClient: 30,
        },
      },
    });
    // The limiter the platform chose is the one named: Redis counters have no in-process fast path.
    expect(typeof t.platform.rateLimiter.peekNow).toBe(limiter === 'memory' ? 'function' : 'undefined');
    h = await startTokenService({ kind: 'pglite', testPlatform: t, upstream: false });
  });
  afterAll(async () => h?.close());

  it('stops a flood of bad secrets at its address, while the real client goes on from another', async () => {
    const flood = [];
    for (let i = 0; i < 20; i++) flood.push((await introspect('127.0.0.2', 'guess-' + i)).status);
    expect(flood.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(flood.slice(5))).toEqual(new Set([429]));
    // The flooding address is refused before any secret is checked, even with the right one.
    const locked = await introspect('127.0.0.2', RP_SECRET);
    expect(locked.status).toBe(429);
    expect(Number(locked.retryAfter)).toBeGreaterThan(0);
    // The real client, from its own address, is not affected.
    expect((await introspect('127.0.0.1', RP_SECRET)).status).toBe(200);
  });

  it('locks a client for the window once its failures from many addresses pass the higher per-client limit', async () => {
    // 30 failures spread over addresses of 5 each (the first address already counted 5 for demo-rp).
    for (let a = 3; a < 8; a++) for (let i = 0; i < 5; i++) await introspect(`127.0.0.${a}`, 'spread-' + i);
    const fresh = await introspect('127.0.0.50', RP_SECRET);
    expect(fresh.status).toBe(429);
    // Another client is not affected.
    const other = await postFrom(
      '127.0.0.50',
      `${h.issuer}/introspect`,
      { token: 'not-a-token' },
      basic('other-rp', 'other-rp-secret'),
    );
    expect(other.status).toBe(200);
  });
});
