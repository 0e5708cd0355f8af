import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDpopReplayTableSql } from '@tessera/pkce-dpop';
import type { RedisRateLimiter } from '@tessera/platform';
import { DATABASE_KINDS, createTestPlatform, type TestPlatform } from '@tessera/platform/testing';
import { grantPurgeJob } from '../../src/index.js';
import { DPOP_REPLAY_TABLE } from '../../src/storage/dpop-replay-store.js';
import { migrations } from '../support/harness.js';
import { mintDpopCode, startDpopTokenService, type DpopHarness } from './support/dpop-harness.js';
import { clientKey } from './support/proofs.js';
import { codeForm, tokenRequest } from './support/requests.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

it('the migration creates exactly the table of @tessera/pkce-dpop SqlDpopReplayStore', () => {
  const migration = readFileSync(new URL('../../src/storage/migrations/0002_dpop.sql', import.meta.url), 'utf8');
  expect(migration).toContain(createDpopReplayTableSql(DPOP_REPLAY_TABLE));
});

/** The replay state in the platform database (RFC 9449 §11.1), as every replica shares it. */
describe.each(DATABASE_KINDS)('DPoP replay table (%s)', (kind) => {
  let h: DpopHarness;

  beforeAll(async () => {
    h = await startDpopTokenService({ kind, manualClock: true });
  });
  afterAll(async () => h?.close());

  it('remembers a key once until it expires, then takes it over; the purge job removes expired rows', async () => {
    const { replay } = h.ctx.dpop;
    expect(replay.sql).not.toBeNull();
    const now = h.clock!.now();
    const until = new Date(now.getTime() + 66_000);
    const key = randomBytes(16).toString('base64url');
    expect(await replay.store.rememberOnce(key, until)).toBe(true);
    expect(await replay.store.rememberOnce(key, until)).toBe(false);
    const stale = randomBytes(16).toString('base64url');
    expect(await replay.store.rememberOnce(stale, new Date(now.getTime() + 1000))).toBe(true);

    h.clock!.advance(66);
    // Expired but not yet purged: a new proof with this key is accepted again, as by the other stores.
    expect(await replay.store.rememberOnce(key, new Date(h.clock!.now().getTime() + 66_000))).toBe(true);
    expect(await h.ctx.dpop.purgeExpired()).toBe(1);
    expect(await replay.store.rememberOnce(key, new Date(h.clock!.now().getTime() + 66_000))).toBe(false);

    // The token service's purge job removes them too: once the taken-over row expires, nothing is left after it.
    h.clock!.advance(67);
    await grantPurgeJob(h.ctx).run(new AbortController().signal);
    expect(await h.ctx.dpop.purgeExpired()).toBe(0);
  });

  it('concurrent uses of one proof: exactly one is accepted', async () => {
    const key = await clientKey();
    const proof = await key.proof({ httpMethod: 'POST', httpUrl: h.tokenEndpoint, now: h.clock!.now() });
    const codes = await Promise.all(Array.from({ length: 8 }, () => mintDpopCode(h)));
    const results = await Promise.all(
      codes.map((code) => tokenRequest(h.tokenEndpoint, codeForm(code), { dpop: proof })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400 && r.body.error === 'invalid_dpop_proof')).toHaveLength(7);
  });
});

/** With `redis.url` set, the replay state is in Redis (the platform's connection), not in the database. */
describe('DPoP replay in Redis', () => {
  let t: TestPlatform;
  let h: DpopHarness;
  const keyPrefix = `tessera-test:${randomBytes(6).toString('hex')}:`;

  beforeAll(async () => {
    t = await createTestPlatform('pglite', {
      migrations,
      overrides: { rateLimit: { enabled: false }, redis: { url: REDIS_URL, keyPrefix } },
    });
    h = await startDpopTokenService({ kind: 'pglite', testPlatform: t });
  });
  afterAll(async () => {
    const redis = (t?.platform.rateLimiter as RedisRateLimiter | undefined)?.redis;
    const keys = redis ? await redis.keys(`${keyPrefix}*`) : [];
    if (redis && keys.length > 0) await redis.del(...keys);
    await h?.close();
    await t?.close();
  });

  it('records the jti under the platform prefix and refuses the replay', async () => {
    expect(h.ctx.dpop.replay.sql).toBeNull();
    const key = await clientKey();
    const proof = await key.proof({ httpMethod: 'POST', httpUrl: h.tokenEndpoint });
    expect((await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)), { dpop: proof })).status).toBe(200);
    const replay = await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)), { dpop: proof });
    expect(replay.status).toBe(400);
    expect(String(replay.body.error_description)).toMatch(/jti/);
    const redis = (t.platform.rateLimiter as RedisRateLimiter).redis;
    const keys = await redis.keys(`${keyPrefix}dpop:jti:*`);
    expect(keys).toHaveLength(1);
    expect(await redis.pttl(keys[0]!)).toBeGreaterThan(0);
  });
});

/** RFC 9449 §11.1: a proof whose jti cannot be recorded is not accepted. */
describe('DPoP replay store unreachable', () => {
  let t: TestPlatform;
  let h: DpopHarness;

  beforeAll(async () => {
    // Nothing listens on port 1: every Redis command fails at once (the platform's client has no offline queue).
    t = await createTestPlatform('pglite', {
      migrations,
      overrides: { rateLimit: { enabled: false }, redis: { url: 'redis://127.0.0.1:1' } },
    });
    h = await startDpopTokenService({ kind: 'pglite', testPlatform: t });
  });
  afterAll(async () => {
    await h?.close();
    await t?.close();
  });

  it('answers 503 temporarily_unavailable and leaves the code unused', async () => {
    const key = await clientKey();
    const code = await mintDpopCode(h);
    const proof = await key.proof({ httpMethod: 'POST', httpUrl: h.tokenEndpoint });
    const res = await tokenRequest(h.tokenEndpoint, codeForm(code), { dpop: proof });
    expect(res.status).toBe(503);
    expect(res.body.error).toBe('temporarily_unavailable');
    // The failure is logged (a 5xx), without the proof, its key or the code.
    expect(t.logs.text).toContain('request failed');
    for (const secret of [proof, proof.split('.')[2]!, key.jkt, code.code]) expect(t.logs.text).not.toContain(secret);
    // Without a proof the same code is redeemed (as a Bearer grant): the refusal consumed nothing.
    const plain = await tokenRequest(h.tokenEndpoint, codeForm(code));
    expect(plain.status).toBe(200);
    expect(plain.body.token_type).toBe('Bearer');
  });
});
