import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisRateLimiter } from '@tessera/platform';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { generateDpopKeyPair } from '@tessera/pkce-dpop';
import { startReconBed, unique, type ReconBed } from './support/recon-bed.js';

/**
 * Rate limiting per client (000 §7 429 rate_limited with Retry-After; RFC 6585 §4) through the platform's limiter
 * keyed by the client id, and the DPoP replay index in Redis when the platform has one (RFC 9449 §11.1).
 */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe.each(DATABASE_KINDS)('reconciliation API rate limit (%s)', (kind) => {
  let bed: ReconBed;
  let identityId: string;

  beforeAll(async () => {
    bed = await startReconBed({
      kind,
      platform: { rateLimit: { enabled: true, requestsPerWindow: 3, windowSeconds: 2 } },
    });
    identityId = await bed.createIdentity({ service_id: unique('rl') });
  });
  afterAll(async () => bed?.close());

  it('answers 429 rate_limited with an integer Retry-After per client; other clients go on; a retry after it succeeds', async () => {
    const full = await bed.ourToken('recon-full');
    const partner = (await bed.second.token('partner-system')).accessToken;
    const claims = (token: string) => bed.call({ method: 'GET', path: `/${identityId}/claims`, token });
    let limited = await claims(full);
    for (let i = 0; i < 10 && limited.status !== 429; i++) limited = await claims(full);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'rate_limited', error_description: expect.any(String) });
    const retryAfter = String(limited.headers['retry-after']);
    expect(retryAfter).toMatch(/^[1-9][0-9]*$/);
    // The limit is the client's own: another client is not affected.
    expect((await claims(partner)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Number(retryAfter) * 1000));
    expect((await claims(full)).status).toBe(200);
  });
});

describe.each(DATABASE_KINDS)('reconciliation API with Redis: the DPoP replay index (%s)', (kind) => {
  let bed: ReconBed;
  let redis: RedisRateLimiter['redis'];
  const prefix = `tessera-test-${randomBytes(6).toString('hex')}:`;

  beforeAll(async () => {
    bed = await startReconBed({ kind, platform: { redis: { url: REDIS_URL, keyPrefix: prefix } } });
    // The platform's own connection (its rate limiter's), which the replay store shares.
    expect(bed.platform.rateLimiter).toBeInstanceOf(RedisRateLimiter);
    redis = (bed.platform.rateLimiter as RedisRateLimiter).redis;
  });
  afterAll(async () => {
    const keys = await redis?.keys(`${prefix}*`);
    if (keys?.length) await redis.del(...keys);
    await bed?.close();
  });

  it('accepts a proof once, refuses its replay, and keeps the jti in Redis rather than the SQL table', async () => {
    const id = await bed.createIdentity({ service_id: unique('redis') });
    const key = await generateDpopKeyPair('ES256');
    const { accessToken } = await bed.second.token('partner-system', { dpop: key });
    const path = `/${id}/claims`;
    const proof = await bed.proof(key, 'GET', path, accessToken);
    const call = () => bed.call({ method: 'GET', path, token: accessToken, scheme: 'DPoP', headers: { dpop: proof } });
    expect((await call()).status).toBe(200);
    const replay = await call();
    expect(replay.status).toBe(401);
    expect(replay.headers['www-authenticate']).toMatch(/^DPoP error="invalid_dpop_proof"/);
    expect(await redis.keys(`${prefix}dpop:jti:*`)).toHaveLength(1);
    const rows = await bed.platform.db.withPlatform((sql) => sql.query('SELECT 1 FROM dpop_replay'));
    expect(rows.rowCount).toBe(0);
  });
});
