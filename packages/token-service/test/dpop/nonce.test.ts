import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, SoftwareKeyManager, platformMigrations } from '@tessera/platform';
import { DATABASE_KINDS, openTestDatabase, seedTenants, type TestDatabase } from '@tessera/platform/testing';
import { DpopNonceManager } from '@tessera/pkce-dpop';
import { DpopNonces } from '../../src/dpop/dpop-nonces.js';
import { mintDpopCode, startDpopTokenService, type DpopHarness } from './support/dpop-harness.js';
import { clientKey } from './support/proofs.js';
import { codeForm, demoAuth, tokenRequest, userinfoRequest } from './support/requests.js';

/** The start of the current minute: nonce slots are 60 s long, so slot edges are exact from there. */
const slotStart = () => new Date(Math.floor(Date.now() / 60_000) * 60_000);

/**
 * Server nonces (RFC 9449 §8 at the token endpoint, §9 at the userinfo resource): a proof without the current
 * nonce is refused with use_dpop_nonce and a fresh `DPoP-Nonce`; a nonce stays valid for one to two minutes.
 */
describe('DPoP nonces required (pglite)', () => {
  let h: DpopHarness;

  beforeAll(async () => {
    h = await startDpopTokenService({ kind: 'pglite', dpop: { nonceRequired: true }, manualClock: true });
    h.clock!.set(slotStart());
  });
  afterAll(async () => h?.close());

  const post = (nonce?: string | null) => (key: Awaited<ReturnType<typeof clientKey>>) =>
    key.proof({ httpMethod: 'POST', httpUrl: h.tokenEndpoint, now: h.clock!.now(), nonce: nonce ?? null });

  it('token endpoint: use_dpop_nonce with a DPoP-Nonce, then success with that nonce and the next nonce', async () => {
    const key = await clientKey();
    const code = await mintDpopCode(h);
    const first = await tokenRequest(h.tokenEndpoint, codeForm(code), { dpop: await post()(key) });
    expect(first.status).toBe(400);
    expect(first.body.error).toBe('use_dpop_nonce');
    const nonce = first.headers.get('dpop-nonce');
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const wrong = await tokenRequest(h.tokenEndpoint, codeForm(code), { dpop: await post('not-the-nonce')(key) });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('use_dpop_nonce');
    expect(wrong.headers.get('dpop-nonce')).toBe(nonce);

    const ok = await tokenRequest(h.tokenEndpoint, codeForm(code), { dpop: await post(nonce)(key) });
    expect(ok.status).toBe(200);
    expect(ok.body.token_type).toBe('DPoP');
    expect(ok.headers.get('dpop-nonce')).toBe(nonce);
  });

  it('a nonce is accepted in the next slot and refused in the one after', async () => {
    const key = await clientKey();
    const nonce = (
      await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)), { dpop: await post()(key) })
    ).headers.get('dpop-nonce')!;
    const start = h.clock!.now();
    try {
      h.clock!.advance(61);
      const next = await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)), {
        dpop: await post(nonce)(key),
      });
      expect(next.status).toBe(200);
      expect(next.headers.get('dpop-nonce')).not.toBe(nonce);
      h.clock!.advance(60);
      const stale = await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)), {
        dpop: await post(nonce)(key),
      });
      expect(stale.status).toBe(400);
      expect(stale.body.error).toBe('use_dpop_nonce');
    } finally {
      h.clock!.set(start);
    }
  });

  it('userinfo: 401 use_dpop_nonce in the DPoP challenge with a DPoP-Nonce, then success', async () => {
    const key = await clientKey();
    const first = await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)), { dpop: await post()(key) });
    const nonce = first.headers.get('dpop-nonce')!;
    const issued = await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)), {
      dpop: await post(nonce)(key),
    });
    const token = String(issued.body.access_token);
    const proof = (n: string | null) =>
      key.proof({ httpMethod: 'GET', httpUrl: h.userinfoEndpoint, accessToken: token, now: h.clock!.now(), nonce: n });

    const refused = await userinfoRequest(h.userinfoEndpoint, {
      authorization: `DPoP ${token}`,
      dpop: await proof(null),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^DPoP error="use_dpop_nonce".*algs="ES256 ES384"/);
    expect(refused.headers.get('dpop-nonce')).toBe(nonce);
    const ok = await userinfoRequest(h.userinfoEndpoint, { authorization: `DPoP ${token}`, dpop: await proof(nonce) });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('dpop-nonce')).toBe(nonce);
  });

  it('asks nothing of clients that send no proof', async () => {
    const code = await mintDpopCode(h, { clientId: 'demo-rp', scope: 'openid' });
    const res = await tokenRequest(h.tokenEndpoint, codeForm(code, true), { authorization: demoAuth });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('Bearer');
    expect(res.headers.get('dpop-nonce')).toBeNull();
  });
});

describe('DPoP nonces from a configured shared secret (pglite)', () => {
  let h: DpopHarness;
  const nonceSecret = randomBytes(32).toString('base64url');

  beforeAll(async () => {
    h = await startDpopTokenService({ kind: 'pglite', dpop: { nonceRequired: true, nonceSecret } });
  });
  afterAll(async () => h?.close());

  it('issues the nonces every holder of the secret derives', async () => {
    const key = await clientKey();
    const code = await mintDpopCode(h);
    const first = await tokenRequest(h.tokenEndpoint, codeForm(code), {
      dpop: await key.proof({ httpMethod: 'POST', httpUrl: h.tokenEndpoint }),
    });
    const nonce = first.headers.get('dpop-nonce')!;
    const replica = new DpopNonces({ secret: Buffer.from(nonceSecret, 'base64url') }, () => new Date());
    expect(await replica.validator('demo').isValid(nonce)).toBe(true);
    // They are @tessera/pkce-dpop's DpopNonceManager nonces, scoped to the tenant.
    const secret = Buffer.from(nonceSecret, 'base64url');
    expect(await new DpopNonceManager({ secret, scope: 'demo' }).isValid(nonce)).toBe(true);
    expect(await new DpopNonceManager({ secret, scope: 'beta' }).isValid(nonce)).toBe(false);
    const ok = await tokenRequest(h.tokenEndpoint, codeForm(code), {
      dpop: await key.proof({ httpMethod: 'POST', httpUrl: h.tokenEndpoint, nonce: await replica.issue('demo') }),
    });
    expect(ok.status).toBe(200);
  });
});

/** "Every replica issues and accepts the same nonces": two key managers over one database stand for two replicas. */
describe.each(DATABASE_KINDS)('DPoP nonces across replicas (%s)', (kind) => {
  let t: TestDatabase;
  const clock = new ManualClock(slotStart());

  beforeAll(async () => {
    t = await openTestDatabase(kind, platformMigrations);
    await seedTenants(t.db, 'demo', 'beta');
  });
  afterAll(async () => t?.close());

  it('a nonce of one replica is valid at the other, for its own tenant only', async () => {
    const masterKey = randomBytes(32);
    const a = new DpopNonces({ keys: new SoftwareKeyManager({ db: t.db, masterKey, clock }) }, () => clock.now());
    const b = new DpopNonces({ keys: new SoftwareKeyManager({ db: t.db, masterKey, clock }) }, () => clock.now());
    const nonce = await a.issue('demo');
    expect(await b.issue('demo')).toBe(nonce);
    expect(await b.validator('demo').isValid(nonce)).toBe(true);
    expect(await b.validator('beta').isValid(nonce)).toBe(false);
    const secretReplica = new DpopNonces({ secret: randomBytes(32) }, () => clock.now());
    expect(await secretReplica.validator('demo').isValid(nonce)).toBe(false);
  });
});
