import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { dpopReplayKey, normalizeHttpUri } from '@tessera/pkce-dpop';
import { DEMO_TENANT, type RedisRateLimiter } from '@tessera/platform';
import { DATABASE_KINDS, createTestPlatform, type TestPlatform } from '@tessera/platform/testing';
import { migrations } from '../support/harness.js';
import { mintDpopCode, startDpopTokenService, type DpopHarness } from './support/dpop-harness.js';
import { clientKey, craftedProof, craftKey } from './support/proofs.js';
import { codeForm, tokenRequest } from './support/requests.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Two proofs with one jti under one key's jwk: the genuine one signed by that key, the forged one by another. The
 * jti write of the forged proof travels beside its signature check and is undone when the check fails.
 */
async function proofsSharingJti(htu: string): Promise<{ forged: string; genuine: string }> {
  const key = await craftKey();
  const claims = { jti: randomBytes(12).toString('base64url') };
  const forged = await craftedProof({ htu, now: new Date(), header: { jwk: key.publicJwk }, claims });
  const genuine = await craftedProof({ htu, now: new Date(), key, claims });
  return { forged: forged.proof, genuine: genuine.proof };
}

async function expectForgeryRefused(h: DpopHarness, forged: string): Promise<void> {
  const refused = await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)), { dpop: forged });
  expect(refused.status).toBe(400);
  expect(refused.body.error).toBe('invalid_dpop_proof');
}

/** The replay state in the platform's one table (RFC 9449 §11.1), as every replica and every endpoint shares it. */
describe.each(DATABASE_KINDS)('DPoP replay table (%s)', (kind) => {
  let h: DpopHarness;

  beforeAll(async () => {
    h = await startDpopTokenService({ kind });
  });
  afterAll(async () => h?.close());

  it("records an accepted proof's jti in the platform's dpop_replay table, where every endpoint's store sees it", async () => {
    const key = await clientKey();
    const proof = await key.proof({ httpMethod: 'POST', httpUrl: h.tokenEndpoint });
    expect((await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)), { dpop: proof })).status).toBe(200);
    const db = h.platform.db;
    const rows = await db.withTenant(DEMO_TENANT, (sql) => sql.query('SELECT jti_key FROM dpop_replay'));
    const replayKey = dpopReplayKey(key.jkt, normalizeHttpUri(h.tokenEndpoint)!, String(decodeJwt(proof).jti));
    expect(rows.rows.map((r) => r.jti_key)).toContain(replayKey);
    // The same key through the platform's store, as the external API or the credential issuer would record it: refused.
    const later = new Date(Date.now() + 60_000);
    expect(await h.platform.dpopReplay.forTenant(DEMO_TENANT).rememberOnce(replayKey, later)).toBe(false);
    // The old per-context table is gone.
    const old = await db.withPlatform((sql) => sql.query(`SELECT to_regclass('oauth_dpop_replay') AS t`));
    expect(old.rows[0]!.t).toBeNull();
  });

  it('a forged proof does not use up the jti of the genuine proof that follows it (RFC 9449 §11.1)', async () => {
    const { forged, genuine } = await proofsSharingJti(h.tokenEndpoint);
    await expectForgeryRefused(h, forged);
    const accepted = await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)), { dpop: genuine });
    expect(accepted.status).toBe(200);
    const again = await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)), { dpop: genuine });
    expect(again.status).toBe(400);
    expect(String(again.body.error_description)).toMatch(/jti/);
  });

  it('concurrent uses of one proof: exactly one is accepted', async () => {
    const key = await clientKey();
    const proof = await key.proof({ httpMethod: 'POST', httpUrl: h.tokenEndpoint });
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
    expect(h.ctx.dpop.replay.inRedis).toBe(true);
    const key = await clientKey();
    const proof = await key.proof({ httpMethod: 'POST', httpUrl: h.tokenEndpoint });
    expect((await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)), { dpop: proof })).status).toBe(200);
    const replay = await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)), { dpop: proof });
    expect(replay.status).toBe(400);
    expect(String(replay.body.error_description)).toMatch(/jti/);
    const redis = (t.platform.rateLimiter as RedisRateLimiter).redis;
    const keys = await redis.keys(`${keyPrefix}dpop:jti:${DEMO_TENANT}:*`);
    expect(keys).toHaveLength(1);
    expect(await redis.pttl(keys[0]!)).toBeGreaterThan(0);
  });

  it('leaves no key for a forged proof, so the genuine proof with its jti is accepted', async () => {
    const redis = (t.platform.rateLimiter as RedisRateLimiter).redis;
    const held = async () => (await redis.keys(`${keyPrefix}dpop:jti:${DEMO_TENANT}:*`)).length;
    const before = await held();
    const { forged, genuine } = await proofsSharingJti(h.tokenEndpoint);
    await expectForgeryRefused(h, forged);
    expect(await held()).toBe(before);
    const accepted = await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)), { dpop: genuine });
    expect(accepted.status).toBe(200);
    expect(await held()).toBe(before + 1);
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
