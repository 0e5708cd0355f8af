import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { grantStore } from '../../src/storage/grant-store.js';
import { mintDpopCode, startDpopTokenService, type DpopHarness } from './support/dpop-harness.js';
import { clientKey, type ClientKey } from './support/proofs.js';
import { codeForm, tokenRequest, userinfoRequest, type JsonResponse } from './support/requests.js';

const ALGS = 'algs="ES256 ES384"';

/**
 * The userinfo endpoint as a DPoP resource server (RFC 9449 §7): `Authorization: DPoP` with a proof for the
 * method and URL that carries the token's `ath` and is signed by its `cnf.jkt` key; every failure is 401 with a
 * DPoP challenge naming `algs` (§7.1); a bound token presented as a Bearer token is refused (§7.2).
 */
describe.each(DATABASE_KINDS)('DPoP at the userinfo endpoint (%s)', (kind) => {
  let h: DpopHarness;
  let key: ClientKey;
  let bound: string;
  let bearer: string;

  beforeAll(async () => {
    h = await startDpopTokenService({ kind });
    key = await clientKey();
    const dpop = await key.proof({ httpMethod: 'POST', httpUrl: h.tokenEndpoint });
    bound = String((await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)), { dpop })).body.access_token);
    bearer = String((await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)))).body.access_token);
  });
  afterAll(async () => h?.close());

  const proofFor = (options: { method?: string; url?: string; token?: string | null; by?: ClientKey } = {}) =>
    (options.by ?? key).proof({
      httpMethod: options.method ?? 'GET',
      httpUrl: options.url ?? h.userinfoEndpoint,
      accessToken: options.token === undefined ? bound : options.token,
    });

  function expectChallenge(res: JsonResponse, error: string) {
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(new RegExp(`^DPoP error="${error}"`));
    expect(challenge).toContain(ALGS);
  }

  it('answers GET and POST with the DPoP scheme and a proof for that method', async () => {
    const get = await userinfoRequest(h.userinfoEndpoint, { authorization: `DPoP ${bound}`, dpop: await proofFor() });
    expect(get.status).toBe(200);
    expect(get.body).toMatchObject({ sub: '11111111-2222-4333-8444-555555555555', email: 'alice@demo.example' });
    const post = await userinfoRequest(h.userinfoEndpoint, {
      method: 'POST',
      authorization: `DPoP ${bound}`,
      dpop: await proofFor({ method: 'POST' }),
    });
    expect(post.status).toBe(200);
    expect(post.body.sub).toBe(get.body.sub);
  });

  it('refuses the bound token presented as a Bearer token, in the header or the form (RFC 9449 §7.2)', async () => {
    expectChallenge(await userinfoRequest(h.userinfoEndpoint, { authorization: `Bearer ${bound}` }), 'invalid_token');
    expectChallenge(
      await userinfoRequest(h.userinfoEndpoint, { method: 'POST', form: { access_token: bound } }),
      'invalid_token',
    );
  });

  it.each([
    ['no DPoP header', async () => undefined, 'invalid_dpop_proof'],
    ['a proof without ath', async () => proofFor({ token: null }), 'invalid_dpop_proof'],
    ['a proof with the ath of another token', async () => proofFor({ token: bearer }), 'invalid_dpop_proof'],
    ['a proof for POST on a GET', async () => proofFor({ method: 'POST' }), 'invalid_dpop_proof'],
    ['a proof for the token endpoint', async () => proofFor({ url: h.tokenEndpoint }), 'invalid_dpop_proof'],
    ['a proof by another key than cnf.jkt', async () => proofFor({ by: await clientKey() }), 'invalid_token'],
  ])('refuses %s', async (_name, makeProof, error) => {
    const dpop = await makeProof();
    expectChallenge(
      await userinfoRequest(h.userinfoEndpoint, { authorization: `DPoP ${bound}`, ...(dpop ? { dpop } : {}) }),
      error,
    );
  });

  it('refuses a replayed proof (RFC 9449 §11.1)', async () => {
    const dpop = await proofFor();
    expect((await userinfoRequest(h.userinfoEndpoint, { authorization: `DPoP ${bound}`, dpop })).status).toBe(200);
    const replay = await userinfoRequest(h.userinfoEndpoint, { authorization: `DPoP ${bound}`, dpop });
    expectChallenge(replay, 'invalid_dpop_proof');
    expect(replay.headers.get('www-authenticate')).toContain('jti');
  });

  it('refuses an unbound token with the DPoP scheme, and an invalid token', async () => {
    expectChallenge(
      await userinfoRequest(h.userinfoEndpoint, {
        authorization: `DPoP ${bearer}`,
        dpop: await proofFor({ token: bearer }),
      }),
      'invalid_token',
    );
    expectChallenge(
      await userinfoRequest(h.userinfoEndpoint, {
        authorization: 'DPoP x.y.z',
        dpop: await proofFor({ token: 'x.y.z' }),
      }),
      'invalid_token',
    );
  });

  it('still answers unbound tokens as Bearer tokens, and offers both schemes when no token comes', async () => {
    const res = await userinfoRequest(h.userinfoEndpoint, { authorization: `Bearer ${bearer}` });
    expect(res.status).toBe(200);
    const none = await userinfoRequest(h.userinfoEndpoint);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(`Bearer, DPoP ${ALGS}`);
  });

  it('answers a bound token without openid with insufficient_scope in a DPoP challenge', async () => {
    const other = await clientKey();
    const code = await mintDpopCode(h, { scope: 'profile' });
    const issued = await tokenRequest(h.tokenEndpoint, codeForm(code), {
      dpop: await other.proof({ httpMethod: 'POST', httpUrl: h.tokenEndpoint }),
    });
    const token = String(issued.body.access_token);
    const res = await userinfoRequest(h.userinfoEndpoint, {
      authorization: `DPoP ${token}`,
      dpop: await proofFor({ token, by: other }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(`DPoP error="insufficient_scope", ${ALGS}`);
  });

  it('refuses a bound token once revoked', async () => {
    const other = await clientKey();
    const issued = await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)), {
      dpop: await other.proof({ httpMethod: 'POST', httpUrl: h.tokenEndpoint }),
    });
    const token = String(issued.body.access_token);
    expect(
      (
        await userinfoRequest(h.userinfoEndpoint, {
          authorization: `DPoP ${token}`,
          dpop: await proofFor({ token, by: other }),
        })
      ).status,
    ).toBe(200);
    // The grant is revoked as a refresh token reuse revokes it (a public client cannot call /revoke).
    const grantId = String(decodeJwt(token).sid);
    await h.platform.db.withTenant('demo', (sql) => grantStore.revokeGrant(sql, grantId, 'test', new Date()));
    expectChallenge(
      await userinfoRequest(h.userinfoEndpoint, {
        authorization: `DPoP ${token}`,
        dpop: await proofFor({ token, by: other }),
      }),
      'invalid_token',
    );
  });
});
