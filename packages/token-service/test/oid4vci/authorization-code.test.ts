import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { clientKey, type ClientKey } from '../dpop/support/proofs.js';
import { basic, challengeOf, postForm } from '../support/codes.js';
import { RP_SECRET } from '../support/harness.js';
import { UserAgent } from '../support/user-agent.js';
import { CREDENTIAL_ISSUER, startOid4vciBed, WALLET_CLIENT, WALLET_REDIRECT, type Oid4vciBed } from './support.js';

const OFFERED = ['pid-sd-jwt', 'diploma-vc'];
const detail = (id: string) => ({ type: 'openid_credential', credential_configuration_id: id });

/**
 * The authorization code flow for credential issuance (OpenID4VCI 1.0 §5, §6; issue 19 item 2): the wallet's
 * authorization request carries the offer's issuer_state and authorization_details (or a credential scope), the
 * person logs in at the institutional provider as on the ordinary login path, and the code is exchanged, with PKCE
 * and DPoP, for the credential endpoint's access token (contract B, sub = the person).
 */
describe.each(DATABASE_KINDS)('credential authorization code flow (%s)', (kind) => {
  let bed: Oid4vciBed;
  let seq = 0;
  const issuerState = async (ids = OFFERED) => {
    const correlationId = `auth-${kind}-${++seq}`;
    const { issuerState: value } = await bed.grants.createIssuerState('demo', {
      correlationId,
      credentialConfigurationIds: ids,
    });
    return { value, correlationId };
  };
  const authorizeUrl = (params: Record<string, string>) => {
    const url = new URL(`${bed.issuer}/authorize`);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return url.href;
  };
  const walletRequest = (verifier: string, extra: Record<string, string>) =>
    authorizeUrl({
      response_type: 'code',
      client_id: WALLET_CLIENT,
      redirect_uri: WALLET_REDIRECT,
      code_challenge: challengeOf(verifier),
      code_challenge_method: 'S256',
      state: 'wallet-state',
      ...extra,
    });

  /** Authorization request, login at the provider, and the code at the wallet's redirect URI. */
  async function authorize(extra: Record<string, string>) {
    const verifier = randomBytes(32).toString('base64url');
    const ua = new UserAgent();
    const page = await ua.follow(walletRequest(verifier, extra), WALLET_REDIRECT);
    expect(page.response?.status, 'the login page of the provider').toBe(200);
    const user = bed.idp!.users[0]!;
    const back = await ua.login(
      page as { url: string; response: Response },
      user.username,
      user.password,
      WALLET_REDIRECT,
    );
    const callback = new URL(back.url);
    expect(callback.searchParams.get('error')).toBeNull();
    expect(callback.searchParams.get('state')).toBe('wallet-state');
    return { code: callback.searchParams.get('code')!, verifier };
  }

  /** The authorization request's immediate answer (a refusal redirects back to the wallet without a login). */
  async function refusalOf(extra: Record<string, string>) {
    const res = await fetch(walletRequest(randomBytes(32).toString('base64url'), extra), { redirect: 'manual' });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(WALLET_REDIRECT);
    return location.searchParams;
  }

  const exchange = async (code: string, verifier: string, key?: ClientKey, over: Record<string, string> = {}) =>
    postForm(
      bed.tokenEndpoint,
      {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: WALLET_REDIRECT,
        client_id: WALLET_CLIENT,
        ...over,
      },
      key ? { dpop: await key.proof({ httpMethod: 'POST', httpUrl: bed.tokenEndpoint, now: bed.clock.now() }) } : {},
    );

  beforeAll(async () => {
    bed = await startOid4vciBed(kind, { upstream: true });
  });
  afterAll(async () => bed?.close());

  it('issues the contract-B token for the person, with issuer_state + authorization_details, PKCE and DPoP', async () => {
    const state = await issuerState();
    const { code, verifier } = await authorize({
      issuer_state: state.value,
      authorization_details: JSON.stringify([detail('pid-sd-jwt')]),
    });
    expect(code.startsWith('vci.')).toBe(true);
    const key = await clientKey();
    const res = await exchange(code, verifier, key);
    expect(res.status).toBe(200);
    const details = [{ ...detail('pid-sd-jwt'), credential_identifiers: ['pid-sd-jwt'] }];
    expect(res.body).toMatchObject({ token_type: 'DPoP', expires_in: 600, authorization_details: details });
    expect(res.body).not.toHaveProperty('refresh_token');
    expect(res.body).not.toHaveProperty('id_token');
    const claims = await bed.verifyAccessToken(res.body.access_token as string);
    expect(claims).toMatchObject({
      iss: bed.issuer,
      aud: CREDENTIAL_ISSUER,
      tenant_id: 'demo',
      issuance_session: state.correlationId,
      authorization_details: details,
      client_id: WALLET_CLIENT,
      cnf: { jkt: key.jkt },
    });
    // sub is the person: the internal identity the login resolved, not the session.
    expect(claims.sub).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('authorizes by a credential scope, and every offered configuration when neither is given', async () => {
    const byScope = await issuerState();
    const a = await authorize({ issuer_state: byScope.value, scope: 'diploma' });
    const ra = await exchange(a.code, a.verifier);
    expect(ra.status).toBe(200);
    expect(
      (ra.body.authorization_details as Array<{ credential_configuration_id: string }>).map(
        (d) => d.credential_configuration_id,
      ),
    ).toEqual(['diploma-vc']);
    expect(ra.body.token_type).toBe('Bearer');

    const plain = await issuerState();
    const b = await authorize({ issuer_state: plain.value });
    const rb = await exchange(b.code, b.verifier);
    expect((await bed.verifyAccessToken(rb.body.access_token as string)).authorization_details).toEqual(
      OFFERED.map((id) => ({ ...detail(id), credential_identifiers: [id] })),
    );
  });

  it('refuses an unknown issuer_state, back at the wallet without a login', async () => {
    const answer = await refusalOf({
      issuer_state: 'unknown-state',
      authorization_details: JSON.stringify([detail('pid-sd-jwt')]),
    });
    expect(answer.get('error')).toBe('invalid_request');
    expect(answer.get('error_description')).toMatch(/issuer_state/);
    expect(answer.get('state')).toBe('wallet-state');
    expect(answer.get('iss')).toBe(bed.issuer);
  });

  it('refuses authorization_details without issuer_state, and a configuration the offer did not bind', async () => {
    expect((await refusalOf({ authorization_details: JSON.stringify([detail('pid-sd-jwt')]) })).get('error')).toBe(
      'invalid_request',
    );
    const state = await issuerState(['pid-sd-jwt']);
    const other = await refusalOf({
      issuer_state: state.value,
      authorization_details: JSON.stringify([detail('diploma-vc')]),
    });
    expect(other.get('error')).toBe('invalid_authorization_details');
    const scoped = await refusalOf({ issuer_state: state.value, scope: 'diploma' });
    expect(scoped.get('error')).toBe('invalid_scope');
    const malformed = await refusalOf({
      issuer_state: state.value,
      authorization_details: '[{"type":"openid_credential"}]',
    });
    expect(malformed.get('error')).toBe('invalid_authorization_details');
  });

  it('uses an issuer_state once: a second authorization request with it is refused', async () => {
    const state = await issuerState();
    await authorize({ issuer_state: state.value });
    expect((await refusalOf({ issuer_state: state.value })).get('error')).toBe('invalid_request');
  });

  it('refuses an expired issuer_state', async () => {
    const { issuerState: value } = await bed.grants.createIssuerState('demo', {
      correlationId: `expired-${kind}`,
      credentialConfigurationIds: OFFERED,
      ttlSeconds: 20,
    });
    bed.clock.set(new Date(Date.now() + 21_000));
    try {
      expect((await refusalOf({ issuer_state: value })).get('error')).toBe('invalid_request');
    } finally {
      bed.clock.set(new Date());
    }
  });

  it('refuses a wrong PKCE verifier, another client, and a reused code (which revokes the first token)', async () => {
    const state = await issuerState();
    const { code, verifier } = await authorize({ issuer_state: state.value });
    expect(await exchange(code, randomBytes(32).toString('base64url'))).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    expect(
      await postForm(
        bed.tokenEndpoint,
        { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: WALLET_REDIRECT },
        { authorization: basic('demo-rp', RP_SECRET) },
      ),
    ).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await exchange(code, verifier, undefined, { code_verifier: 'short' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_request' },
    });
    const first = await exchange(code, verifier);
    expect(first.status).toBe(200);
    expect(await exchange(code, verifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const introspection = await postForm(
      `${bed.issuer}/introspect`,
      { token: first.body.access_token as string },
      { authorization: basic('demo-rp', RP_SECRET) },
    );
    expect(introspection).toMatchObject({ status: 200, body: { active: false } });
  });

  it('holds a code bound by dpop_jkt to that key', async () => {
    const key = await clientKey();
    const state = await issuerState();
    const { code, verifier } = await authorize({ issuer_state: state.value, dpop_jkt: key.jkt });
    expect(await exchange(code, verifier, await clientKey())).toMatchObject({
      status: 400,
      body: { error: 'invalid_dpop_proof' },
    });
    expect((await exchange(code, verifier, key)).status).toBe(200);
  });

  it('leaves the ordinary login flow as it was (no credential request: an ordinary code)', async () => {
    const { code } = await authorize({ scope: 'openid' });
    expect(code.startsWith('vci.')).toBe(false);
  });
});

describe('credential authorization code flow with DPoP required (HAIP 1.0)', () => {
  let bed: Oid4vciBed;
  beforeAll(async () => {
    bed = await startOid4vciBed('pglite', { upstream: true, oid4vci: { requireDpop: true } });
  });
  afterAll(async () => bed?.close());

  it('refuses the exchange without a proof, leaving the code for a request with one', async () => {
    const { issuerState } = await bed.grants.createIssuerState('demo', {
      correlationId: 'haip-auth',
      credentialConfigurationIds: OFFERED,
    });
    const verifier = randomBytes(32).toString('base64url');
    const url = new URL(`${bed.issuer}/authorize`);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: WALLET_CLIENT,
      redirect_uri: WALLET_REDIRECT,
      code_challenge: challengeOf(verifier),
      code_challenge_method: 'S256',
      issuer_state: issuerState,
    }))
      url.searchParams.set(k, v);
    const ua = new UserAgent();
    const page = await ua.follow(url.href, WALLET_REDIRECT);
    const user = bed.idp!.users[0]!;
    const back = await ua.login(
      page as { url: string; response: Response },
      user.username,
      user.password,
      WALLET_REDIRECT,
    );
    const code = new URL(back.url).searchParams.get('code')!;
    const form = {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: WALLET_REDIRECT,
      client_id: WALLET_CLIENT,
    };
    expect(await postForm(bed.tokenEndpoint, form)).toMatchObject({
      status: 400,
      body: { error: 'invalid_dpop_proof' },
    });
    const key = await clientKey();
    const proof = await key.proof({ httpMethod: 'POST', httpUrl: bed.tokenEndpoint, now: bed.clock.now() });
    const res = await postForm(bed.tokenEndpoint, form, { dpop: proof });
    expect(res).toMatchObject({ status: 200, body: { token_type: 'DPoP' } });
  });
});

describe('credential authorization code flow through a wallet login (login_hint=oid4vp)', () => {
  let bed: Oid4vciBed;
  const WALLET_USER = '7b0c7a5e-1111-4222-8333-944444444444';
  beforeAll(async () => {
    // The bridge's answer for a completed presentation session (its own tests cover the presentation itself).
    // DPoP off for the login grants: a credential request's dpop_jkt and proof still bind its code and token.
    bed = await startOid4vciBed('pglite', {
      dpop: false,
      wallet: {
        redeem: async () => ({
          kind: 'redeemed',
          result: {
            userId: WALLET_USER,
            claims: {},
            acr: 'urn:tessera:oid4vp:vp',
            amr: ['vp'],
            authenticatedAt: new Date().toISOString(),
          },
        }),
      },
    });
  });
  afterAll(async () => bed?.close());

  it('carries the issuer_state and dpop_jkt to the code of the wallet login (DPoP off for logins); the token names the wallet user', async () => {
    const { issuerState } = await bed.grants.createIssuerState('demo', {
      correlationId: 'wallet-login-issuance',
      credentialConfigurationIds: OFFERED,
    });
    const key = await clientKey();
    const verifier = randomBytes(32).toString('base64url');
    const url = new URL(`${bed.issuer}/authorize`);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: WALLET_CLIENT,
      redirect_uri: WALLET_REDIRECT,
      code_challenge: challengeOf(verifier),
      code_challenge_method: 'S256',
      issuer_state: issuerState,
      authorization_details: JSON.stringify([detail('diploma-vc')]),
      login_hint: 'oid4vp:0b4f6a2e-5c3d-4e1f-9a8b-7c6d5e4f3a2b',
      dpop_jkt: key.jkt,
    }))
      url.searchParams.set(k, v);
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
    expect(code.startsWith('vci.')).toBe(true);
    const form = {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: WALLET_REDIRECT,
      client_id: WALLET_CLIENT,
    };
    // Bound by dpop_jkt: no proof, no token (and the code stays unused).
    expect(await postForm(bed.tokenEndpoint, form)).toMatchObject({
      status: 400,
      body: { error: 'invalid_dpop_proof' },
    });
    const proof = await key.proof({ httpMethod: 'POST', httpUrl: bed.tokenEndpoint, now: bed.clock.now() });
    const token = await postForm(bed.tokenEndpoint, form, { dpop: proof });
    expect(token).toMatchObject({ status: 200, body: { token_type: 'DPoP' } });
    expect(await bed.verifyAccessToken(token.body.access_token as string)).toMatchObject({
      sub: WALLET_USER,
      issuance_session: 'wallet-login-issuance',
      cnf: { jkt: key.jkt },
      authorization_details: [{ ...detail('diploma-vc'), credential_identifiers: ['diploma-vc'] }],
    });
  });
});
