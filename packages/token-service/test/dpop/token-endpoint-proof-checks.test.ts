import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { mintDpopCode, startDpopTokenService, type DpopHarness } from './support/dpop-harness.js';
import { clientKey, craftKey, craftedProof } from './support/proofs.js';
import { codeForm, tokenRequest } from './support/requests.js';

/**
 * Every check of RFC 9449 §4.3 at the token endpoint, over HTTP (security-checklist.md, DPoP line): a refused
 * proof is 400 invalid_dpop_proof (§5) and leaves the code unused. The service's clock is set by hand on a whole
 * second, so that the edges of the iat window (60 s + 5 s of skew, §11.1) are exact.
 */
describe.each(DATABASE_KINDS)('DPoP proof checks at the token endpoint (%s)', (kind) => {
  let h: DpopHarness;
  let now: Date;

  beforeAll(async () => {
    h = await startDpopTokenService({ kind, manualClock: true });
    h.clock!.set(new Date(Math.floor(Date.now() / 1000) * 1000));
    now = h.clock!.now();
  });
  afterAll(async () => h?.close());

  const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);

  async function expectRefusedThenRedeemable(dpop: string | string[], description: RegExp) {
    const code = await mintDpopCode(h);
    const refused = await tokenRequest(h.tokenEndpoint, codeForm(code), { dpop });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_dpop_proof');
    expect(String(refused.body.error_description)).toMatch(description);
    expect(refused.headers.get('dpop-nonce')).toBeNull();
    // The refusal happened before the code was looked at: it still redeems with a good proof.
    const key = await clientKey();
    const ok = await tokenRequest(h.tokenEndpoint, codeForm(code), {
      dpop: await key.proof({ httpMethod: 'POST', httpUrl: h.tokenEndpoint, now }),
    });
    expect(ok.status).toBe(200);
  }

  it.each([
    ['typ is not dpop+jwt (point 4)', { header: { typ: 'jwt' } }, /typ/],
    ['typ is missing (point 4)', { header: { typ: undefined } }, /typ/],
    ['alg none (point 5)', { signing: 'none' as const }, /alg/],
    ['a symmetric alg, HS256 (point 5)', { signing: 'hs256' as const }, /alg/],
    ['jwk is missing (point 7)', { header: { jwk: undefined } }, /jwk/],
    ['jti is missing (point 3)', { omit: ['jti'] }, /jti/],
    ['htm is missing (point 3)', { omit: ['htm'] }, /htm/],
    ['htu is missing (point 3)', { omit: ['htu'] }, /htu/],
    ['iat is missing (point 3)', { omit: ['iat'] }, /iat/],
    ['htm GET for a POST (point 8)', { claims: { htm: 'GET' } }, /htm/],
    ['htm in lower case (point 8)', { claims: { htm: 'post' } }, /htm/],
  ])('refuses a proof whose %s', async (_name, variant, description) => {
    const crafted = await craftedProof({ htu: h.tokenEndpoint, now, ...variant });
    await expectRefusedThenRedeemable(crafted.proof, description);
  });

  it('refuses a proof whose jwk holds the private key (point 7)', async () => {
    const key = await craftKey();
    const crafted = await craftedProof({ htu: h.tokenEndpoint, now, key, header: { jwk: key.privateJwk } });
    await expectRefusedThenRedeemable(crafted.proof, /private/);
  });

  it('refuses a proof signed by another key than its jwk (point 6)', async () => {
    const other = await craftKey();
    const crafted = await craftedProof({ htu: h.tokenEndpoint, now, header: { jwk: other.publicJwk } });
    await expectRefusedThenRedeemable(crafted.proof, /signature/);
  });

  it.each([
    ['another endpoint of the issuer', (e: string) => e.replace(/\/token$/, '/userinfo')],
    ['another host for the same server', (e: string) => e.replace('127.0.0.1', 'localhost')],
    ['another scheme', (e: string) => e.replace('http:', 'https:')],
    ['a query (RFC 9449 §4.2: htu has none)', (e: string) => `${e}?client_id=x`],
    ['a fragment', (e: string) => `${e}#f`],
  ])('refuses an htu naming %s (point 9)', async (_name, change) => {
    const crafted = await craftedProof({ htu: change(h.tokenEndpoint), now });
    await expectRefusedThenRedeemable(crafted.proof, /htu/);
  });

  it.each([
    ['66 s old', -66],
    ['66 s ahead', 66],
    ['an hour old', -3600],
  ])('refuses an iat %s (point 11)', async (_name, offset) => {
    const key = await clientKey();
    await expectRefusedThenRedeemable(
      await key.proof({ httpMethod: 'POST', httpUrl: h.tokenEndpoint, now: at(offset) }),
      /iat/,
    );
  });

  it('refuses two DPoP headers and a value that is not a JWT (points 1, 2)', async () => {
    const key = await clientKey();
    const one = await key.proof({ httpMethod: 'POST', httpUrl: h.tokenEndpoint, now });
    const two = await key.proof({ httpMethod: 'POST', httpUrl: h.tokenEndpoint, now });
    await expectRefusedThenRedeemable([one, two], /more than one/);
    await expectRefusedThenRedeemable('not-a-jwt', /compact JWT/);
  });

  it.each([
    ['ES256, iat at the far edge of the window in the past', 'ES256' as const, -65],
    ['ES384, iat at the far edge of the window ahead', 'ES384' as const, 65],
  ])('accepts %s and binds the token to the key', async (_name, alg, offset) => {
    const key = await clientKey(alg);
    const code = await mintDpopCode(h);
    const res = await tokenRequest(h.tokenEndpoint, codeForm(code), {
      dpop: await key.proof({ httpMethod: 'POST', httpUrl: h.tokenEndpoint, now: at(offset) }),
    });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('DPoP');
    expect(decodeJwt(String(res.body.access_token)).cnf).toEqual({ jkt: key.jkt });
  });

  it('accepts typ application/dpop+jwt (RFC 7515 §4.1.9) and ignores the query of the request URI', async () => {
    const crafted = await craftedProof({ htu: h.tokenEndpoint, now, header: { typ: 'application/dpop+jwt' } });
    const code = await mintDpopCode(h);
    const res = await tokenRequest(`${h.tokenEndpoint}?x=1`, codeForm(code), { dpop: crafted.proof });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('DPoP');
  });

  describe('jti replay (RFC 9449 §11.1)', () => {
    it('a proof at the last second of the window is accepted once; its replay then is refused, and a second later it is stale', async () => {
      const key = await clientKey();
      const proof = await key.proof({ httpMethod: 'POST', httpUrl: h.tokenEndpoint, now: at(-65) });
      const first = await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)), { dpop: proof });
      expect(first.status).toBe(200);

      const replay = await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)), { dpop: proof });
      expect(replay.status).toBe(400);
      expect(replay.body).toMatchObject({
        error: 'invalid_dpop_proof',
        error_description: expect.stringMatching(/jti/),
      });

      h.clock!.advance(1);
      try {
        const later = await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)), { dpop: proof });
        expect(later.status).toBe(400);
        expect(String(later.body.error_description)).toMatch(/iat/);
      } finally {
        h.clock!.set(now);
      }
    });

    it('a refused proof does not use up its jti; an accepted one cannot be replayed on another grant type', async () => {
      const key = await craftKey();
      const jti = 'one-jti-two-proofs';
      const wrongHtm = await craftedProof({ htu: h.tokenEndpoint, now, key, claims: { jti, htm: 'GET' } });
      expect(
        (await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)), { dpop: wrongHtm.proof })).status,
      ).toBe(400);

      const good = await craftedProof({ htu: h.tokenEndpoint, now, key, claims: { jti } });
      const first = await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)), { dpop: good.proof });
      expect(first.status).toBe(200);
      const refresh = await tokenRequest(
        h.tokenEndpoint,
        { grant_type: 'refresh_token', refresh_token: String(first.body.refresh_token), client_id: 'dpop-public' },
        { dpop: good.proof },
      );
      expect(refresh.status).toBe(400);
      expect(String(refresh.body.error_description)).toMatch(/jti/);
    });
  });
});
