import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import {
  DPOP_PUBLIC,
  DPOP_PUBLIC_REDIRECT,
  mintDpopCode,
  startDpopTokenService,
  type DpopHarness,
} from './support/dpop-harness.js';
import { clientKey, type ClientKey } from './support/proofs.js';
import { codeForm, demoAuth, tokenRequest } from './support/requests.js';

/**
 * Token binding at the token endpoint (RFC 9449 §5, §6, §10): a code bound by dpop_jkt, the grant bound by the
 * first proof, refreshes of a bound grant (public and confidential clients), client_credentials, and
 * introspection of bound tokens (§6.2). Refusals are 400 invalid_dpop_proof and consume nothing.
 */
describe.each(DATABASE_KINDS)('DPoP token binding (%s)', (kind) => {
  let h: DpopHarness;

  beforeAll(async () => {
    h = await startDpopTokenService({ kind });
  });
  afterAll(async () => h?.close());

  const proofBy = (key: ClientKey) => key.proof({ httpMethod: 'POST', httpUrl: h.tokenEndpoint });
  const refreshForm = (refreshToken: unknown, clientId?: string) => ({
    grant_type: 'refresh_token',
    refresh_token: String(refreshToken),
    ...(clientId ? { client_id: clientId } : {}),
  });
  const introspect = (token: string) => tokenRequest(`${h.issuer}/introspect`, { token }, { authorization: demoAuth });

  describe('a code bound by dpop_jkt (RFC 9449 §10)', () => {
    it('needs a proof, by that key; refusals leave the code redeemable', async () => {
      const key = await clientKey();
      const other = await clientKey();
      const code = await mintDpopCode(h, { dpopJkt: key.jkt });

      const missing = await tokenRequest(h.tokenEndpoint, codeForm(code));
      expect(missing.status).toBe(400);
      expect(missing.body).toMatchObject({
        error: 'invalid_dpop_proof',
        error_description: expect.stringMatching(/required/),
      });

      const mismatch = await tokenRequest(h.tokenEndpoint, codeForm(code), { dpop: await proofBy(other) });
      expect(mismatch.status).toBe(400);
      expect(mismatch.body).toMatchObject({
        error: 'invalid_dpop_proof',
        error_description: expect.stringMatching(/not the key/),
      });

      const ok = await tokenRequest(h.tokenEndpoint, codeForm(code), { dpop: await proofBy(key) });
      expect(ok.status).toBe(200);
      expect(ok.body.token_type).toBe('DPoP');
      expect(decodeJwt(String(ok.body.access_token)).cnf).toEqual({ jkt: key.jkt });
    });

    it('the authorization endpoint refuses a malformed dpop_jkt', async () => {
      const url = new URL(`${h.issuer}/authorize`);
      const params = {
        response_type: 'code',
        client_id: DPOP_PUBLIC,
        redirect_uri: DPOP_PUBLIC_REDIRECT,
        scope: 'openid',
        state: 's1',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        dpop_jkt: 'not a thumbprint',
      };
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status).toBe(303);
      const back = new URL(res.headers.get('location')!);
      expect(back.searchParams.get('error')).toBe('invalid_request');
      expect(back.searchParams.get('error_description')).toBe('dpop_jkt is malformed.');
      expect(back.searchParams.get('state')).toBe('s1');
    });
  });

  describe('a public client (RFC 9449 §5: its refresh token is bound)', () => {
    it('binds access and refresh tokens to the proof key, and refreshes only with that key', async () => {
      const key = await clientKey();
      const other = await clientKey();
      const first = await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)), { dpop: await proofBy(key) });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({
        token_type: 'DPoP',
        refresh_token: expect.any(String),
        id_token: expect.any(String),
      });
      expect(decodeJwt(String(first.body.access_token)).cnf).toEqual({ jkt: key.jkt });

      const noProof = await tokenRequest(h.tokenEndpoint, refreshForm(first.body.refresh_token, DPOP_PUBLIC));
      expect(noProof.status).toBe(401);
      expect(noProof.body.error).toBe('invalid_client');

      const wrongKey = await tokenRequest(h.tokenEndpoint, refreshForm(first.body.refresh_token, DPOP_PUBLIC), {
        dpop: await proofBy(other),
      });
      expect(wrongKey.status).toBe(400);
      expect(wrongKey.body).toMatchObject({
        error: 'invalid_dpop_proof',
        error_description: expect.stringMatching(/not the key/),
      });

      // Neither refusal rotated the refresh token.
      const refreshed = await tokenRequest(h.tokenEndpoint, refreshForm(first.body.refresh_token, DPOP_PUBLIC), {
        dpop: await proofBy(key),
      });
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.token_type).toBe('DPoP');
      expect(refreshed.body.refresh_token).not.toBe(first.body.refresh_token);
      expect(decodeJwt(String(refreshed.body.access_token)).cnf).toEqual({ jkt: key.jkt });
    });

    it('without a proof at the exchange gets Bearer tokens, and may not refresh them', async () => {
      const first = await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)));
      expect(first.status).toBe(200);
      expect(first.body.token_type).toBe('Bearer');
      expect(decodeJwt(String(first.body.access_token)).cnf).toBeUndefined();
      const key = await clientKey();
      const refresh = await tokenRequest(h.tokenEndpoint, refreshForm(first.body.refresh_token, DPOP_PUBLIC), {
        dpop: await proofBy(key),
      });
      expect(refresh.status).toBe(400);
      expect(refresh.body.error).toBe('invalid_grant');
    });
  });

  describe('a confidential client', () => {
    it('is bound when it sends a proof; a refresh of its bound grant needs the same key; introspection shows cnf.jkt', async () => {
      const key = await clientKey();
      const other = await clientKey();
      const code = await mintDpopCode(h, { clientId: 'demo-rp', scope: 'openid profile offline_access' });
      const first = await tokenRequest(h.tokenEndpoint, codeForm(code, true), {
        dpop: await proofBy(key),
        authorization: demoAuth,
      });
      expect(first.status).toBe(200);
      expect(first.body.token_type).toBe('DPoP');

      const info = await introspect(String(first.body.access_token));
      expect(info.body).toMatchObject({
        active: true,
        client_id: 'demo-rp',
        token_type: 'DPoP',
        cnf: { jkt: key.jkt },
      });

      const noProof = await tokenRequest(h.tokenEndpoint, refreshForm(first.body.refresh_token), {
        authorization: demoAuth,
      });
      expect(noProof.status).toBe(400);
      expect(noProof.body.error).toBe('invalid_dpop_proof');
      const wrongKey = await tokenRequest(h.tokenEndpoint, refreshForm(first.body.refresh_token), {
        dpop: await proofBy(other),
        authorization: demoAuth,
      });
      expect(wrongKey.status).toBe(400);
      expect(wrongKey.body.error).toBe('invalid_dpop_proof');

      const refreshed = await tokenRequest(h.tokenEndpoint, refreshForm(first.body.refresh_token), {
        dpop: await proofBy(key),
        authorization: demoAuth,
      });
      expect(refreshed.status).toBe(200);
      expect((await introspect(String(refreshed.body.access_token))).body).toMatchObject({
        active: true,
        token_type: 'DPoP',
        cnf: { jkt: key.jkt },
      });
      expect((await introspect(String(refreshed.body.refresh_token))).body).toMatchObject({
        active: true,
        token_type: 'refresh_token',
      });
    });

    it('without a proof keeps Bearer tokens; a proof on a refresh of an unbound grant binds that access token only', async () => {
      const code = await mintDpopCode(h, { clientId: 'demo-rp', scope: 'openid offline_access' });
      const first = await tokenRequest(h.tokenEndpoint, codeForm(code, true), { authorization: demoAuth });
      expect(first.body.token_type).toBe('Bearer');
      const info = await introspect(String(first.body.access_token));
      expect(info.body).toMatchObject({ active: true, token_type: 'Bearer' });
      expect(info.body.cnf).toBeUndefined();

      const key = await clientKey();
      const bound = await tokenRequest(h.tokenEndpoint, refreshForm(first.body.refresh_token), {
        dpop: await proofBy(key),
        authorization: demoAuth,
      });
      expect(bound.body.token_type).toBe('DPoP');
      expect(decodeJwt(String(bound.body.access_token)).cnf).toEqual({ jkt: key.jkt });
      const plain = await tokenRequest(h.tokenEndpoint, refreshForm(bound.body.refresh_token), {
        authorization: demoAuth,
      });
      expect(plain.status).toBe(200);
      expect(plain.body.token_type).toBe('Bearer');
    });
  });

  it('client_credentials: a proof binds the token (RFC 9449 §5), none leaves it Bearer', async () => {
    const auth = `Basic ${Buffer.from('reconciler:reconciler-secret').toString('base64')}`;
    const key = await clientKey();
    const bound = await tokenRequest(
      h.tokenEndpoint,
      { grant_type: 'client_credentials' },
      { dpop: await proofBy(key), authorization: auth },
    );
    expect(bound.status).toBe(200);
    expect(bound.body.token_type).toBe('DPoP');
    expect(decodeJwt(String(bound.body.access_token)).cnf).toEqual({ jkt: key.jkt });
    const plain = await tokenRequest(h.tokenEndpoint, { grant_type: 'client_credentials' }, { authorization: auth });
    expect(plain.body.token_type).toBe('Bearer');
    expect(decodeJwt(String(plain.body.access_token)).cnf).toBeUndefined();
  });
});

describe('DPoP off (000 §5 default)', () => {
  let h: DpopHarness;

  beforeAll(async () => {
    h = await startDpopTokenService({ kind: 'pglite', dpop: { enabled: false } });
  });
  afterAll(async () => h?.close());

  it('ignores a DPoP header, publishes no DPoP algorithms and refuses dpop_jkt', async () => {
    const key = await clientKey();
    const res = await tokenRequest(h.tokenEndpoint, codeForm(await mintDpopCode(h)), {
      dpop: await key.proof({ httpMethod: 'GET', httpUrl: 'http://elsewhere.example/x' }),
    });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('Bearer');
    expect(decodeJwt(String(res.body.access_token)).cnf).toBeUndefined();

    const meta = (await (await fetch(`${h.issuer}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(meta.dpop_signing_alg_values_supported).toBeUndefined();

    const url = new URL(`${h.issuer}/authorize`);
    const params = {
      response_type: 'code',
      client_id: DPOP_PUBLIC,
      redirect_uri: DPOP_PUBLIC_REDIRECT,
      scope: 'openid',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      dpop_jkt: key.jkt,
    };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const back = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!);
    expect(back.searchParams.get('error_description')).toBe('dpop_jkt is not supported.');
  });
});
