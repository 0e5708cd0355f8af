import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { clientKey } from '../dpop/support/proofs.js';
import { request } from 'node:http';
import { basic, postForm, postFormToHost } from '../support/codes.js';
import { RP_SECRET } from '../support/harness.js';
import { BETA_HOST, CREDENTIAL_ISSUER, PRE_AUTH_GRANT, startOid4vciBed, type Oid4vciBed } from './support.js';

const SESSION_IDS = ['pid-sd-jwt', 'diploma-vc'];

/**
 * The pre-authorized code grant at /token (OpenID4VCI 1.0 §6.1, §6.3; issue 19 item 2), through HTTP against the
 * real token service, with codes made by the issuer's side of contract A.
 */
describe.each(DATABASE_KINDS)('pre-authorized code grant (%s)', (kind) => {
  let bed: Oid4vciBed;
  let seq = 0;
  const offer = async (over: { txCode?: string; ttlSeconds?: number; ids?: string[] } = {}) => {
    const correlationId = `session-${kind}-${++seq}`;
    const { preAuthorizedCode } = await bed.grants.createPreAuthorizedCode('demo', {
      correlationId,
      credentialConfigurationIds: over.ids ?? SESSION_IDS,
      ...(over.txCode !== undefined ? { txCode: over.txCode } : {}),
      ...(over.ttlSeconds !== undefined ? { ttlSeconds: over.ttlSeconds } : {}),
    });
    return { code: preAuthorizedCode, correlationId };
  };
  const proofFor = async (key: Awaited<ReturnType<typeof clientKey>>) =>
    key.proof({ httpMethod: 'POST', httpUrl: bed.tokenEndpoint, now: bed.clock.now() });

  beforeAll(async () => {
    bed = await startOid4vciBed(kind, { oid4vci: { txCodeMaxAttempts: 3 } });
  });
  afterAll(async () => bed?.close());

  it('redeems a code without PIN, anonymously, for a contract-B access token bound to the session', async () => {
    const { code, correlationId } = await offer();
    const res = await bed.redeem({ 'pre-authorized_code': code });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const details = SESSION_IDS.map((id) => ({
      type: 'openid_credential',
      credential_configuration_id: id,
      credential_identifiers: [id],
    }));
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 600, authorization_details: details });
    expect(res.body).not.toHaveProperty('c_nonce');
    expect(res.body).not.toHaveProperty('refresh_token');
    const claims = await bed.verifyAccessToken(res.body.access_token as string);
    expect(claims).toMatchObject({
      iss: bed.issuer,
      aud: CREDENTIAL_ISSUER,
      sub: `issuance:${correlationId}`,
      tenant_id: 'demo',
      issuance_session: correlationId,
      authorization_details: details,
    });
    expect(claims.jti).toEqual(expect.any(String));
    expect(claims).not.toHaveProperty('cnf');
    expect(claims).not.toHaveProperty('client_id');
    expect(claims.exp! - claims.iat!).toBe(600);
  });

  it('redeems a code with the right PIN', async () => {
    const { code } = await offer({ txCode: '493536' });
    const res = await bed.redeem({ 'pre-authorized_code': code, tx_code: '493536' });
    expect(res.status).toBe(200);
  });

  it('refuses a wrong PIN with invalid_grant, and the right one still works within the limit', async () => {
    const { code } = await offer({ txCode: '111111' });
    const wrong = await bed.redeem({ 'pre-authorized_code': code, tx_code: '111112' });
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const right = await bed.redeem({ 'pre-authorized_code': code, tx_code: '111111' });
    expect(right.status).toBe(200);
  });

  it('locks the code after N wrong PINs: the right PIN is refused afterwards', async () => {
    const { code } = await offer({ txCode: '2468' });
    for (let i = 0; i < 3; i++) {
      const res = await bed.redeem({ 'pre-authorized_code': code, tx_code: `000${i}` });
      expect(res).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    }
    const locked = await bed.redeem({ 'pre-authorized_code': code, tx_code: '2468' });
    expect(locked).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(locked.body.error_description).toMatch(/locked/);
  });

  it('counts concurrent wrong PINs without loss (the limit holds under a burst)', async () => {
    const { code } = await offer({ txCode: '97531' });
    const burst = await Promise.all(
      Array.from({ length: 6 }, (_, i) => bed.redeem({ 'pre-authorized_code': code, tx_code: `1000${i}` })),
    );
    expect(burst.every((r) => r.status === 400 && r.body.error === 'invalid_grant')).toBe(true);
    const after = await bed.redeem({ 'pre-authorized_code': code, tx_code: '97531' });
    expect(after).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('asks for tx_code when the code has a PIN, and refuses one when it has none (§6.3 invalid_request)', async () => {
    const withPin = await offer({ txCode: '1234' });
    expect(await bed.redeem({ 'pre-authorized_code': withPin.code })).toMatchObject({
      status: 400,
      body: { error: 'invalid_request' },
    });
    const withoutPin = await offer();
    expect(await bed.redeem({ 'pre-authorized_code': withoutPin.code, tx_code: '1234' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_request' },
    });
    // Neither refusal used the code up.
    expect((await bed.redeem({ 'pre-authorized_code': withPin.code, tx_code: '1234' })).status).toBe(200);
    expect((await bed.redeem({ 'pre-authorized_code': withoutPin.code })).status).toBe(200);
  });

  it('refuses a reused code and revokes the token the first redemption issued', async () => {
    const { code } = await offer();
    const first = await bed.redeem({ 'pre-authorized_code': code });
    expect(first.status).toBe(200);
    const again = await bed.redeem({ 'pre-authorized_code': code });
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const introspection = await postForm(
      `${bed.issuer}/introspect`,
      { token: first.body.access_token as string },
      { authorization: basic('demo-rp', RP_SECRET) },
    );
    expect(introspection).toMatchObject({ status: 200, body: { active: false } });
  });

  it('refuses an expired code', async () => {
    const { code } = await offer({ ttlSeconds: 30 });
    // The code's lifetime starts on the platform's clock; the token service's is moved past its end.
    bed.clock.set(new Date(Date.now() + 31_000));
    try {
      expect(await bed.redeem({ 'pre-authorized_code': code })).toMatchObject({
        status: 400,
        body: { error: 'invalid_grant' },
      });
    } finally {
      bed.clock.set(new Date());
    }
  });

  it('lets exactly one of concurrent redemptions of one code win', async () => {
    const { code } = await offer({ txCode: '8080' });
    const results = await Promise.all(
      Array.from({ length: 8 }, () => bed.redeem({ 'pre-authorized_code': code, tx_code: '8080' })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400 && r.body.error === 'invalid_grant')).toHaveLength(7);
  });

  it('refuses an unknown code and a code of another kind (an issuer_state) with invalid_grant', async () => {
    expect(await bed.redeem({ 'pre-authorized_code': 'n'.repeat(43) })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    const { issuerState } = await bed.grants.createIssuerState('demo', {
      correlationId: 'state-not-code',
      credentialConfigurationIds: SESSION_IDS,
    });
    expect(await bed.redeem({ 'pre-authorized_code': issuerState })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
  });

  it('binds the token to the DPoP key of the proof (cnf.jkt, token_type DPoP)', async () => {
    const key = await clientKey();
    const { code } = await offer();
    const res = await bed.redeem({ 'pre-authorized_code': code }, { dpop: await proofFor(key) });
    expect(res).toMatchObject({ status: 200, body: { token_type: 'DPoP' } });
    expect(await bed.verifyAccessToken(res.body.access_token as string)).toMatchObject({ cnf: { jkt: key.jkt } });
  });

  it('refuses a bad DPoP proof with invalid_dpop_proof, leaving the code unused', async () => {
    const key = await clientKey();
    const { code } = await offer();
    const wrongUrl = await key.proof({ httpMethod: 'POST', httpUrl: `${bed.issuer}/other`, now: bed.clock.now() });
    expect(await bed.redeem({ 'pre-authorized_code': code }, { dpop: wrongUrl })).toMatchObject({
      status: 400,
      body: { error: 'invalid_dpop_proof' },
    });
    expect((await bed.redeem({ 'pre-authorized_code': code }, { dpop: await proofFor(key) })).status).toBe(200);
  });

  it('narrows to the configurations the wallet asks for in authorization_details (§6.1)', async () => {
    const { code } = await offer();
    const asked = JSON.stringify([{ type: 'openid_credential', credential_configuration_id: 'diploma-vc' }]);
    const res = await bed.redeem({ 'pre-authorized_code': code, authorization_details: asked });
    expect(res.status).toBe(200);
    const details = [
      { type: 'openid_credential', credential_configuration_id: 'diploma-vc', credential_identifiers: ['diploma-vc'] },
    ];
    expect(res.body.authorization_details).toEqual(details);
    expect((await bed.verifyAccessToken(res.body.access_token as string)).authorization_details).toEqual(details);
  });

  it.each([
    ['not JSON', '{'],
    ['an empty array', '[]'],
    ['another type', JSON.stringify([{ type: 'payment', credential_configuration_id: 'pid-sd-jwt' }])],
    ['a configuration not offered', JSON.stringify([{ type: 'openid_credential', credential_configuration_id: 'x' }])],
    ['no configuration id', JSON.stringify([{ type: 'openid_credential', format: 'dc+sd-jwt' }])],
  ])(
    'refuses authorization_details that is %s (invalid_authorization_details), leaving the code unused',
    async (_n, value) => {
      const { code } = await offer();
      expect(await bed.redeem({ 'pre-authorized_code': code, authorization_details: value })).toMatchObject({
        status: 400,
        body: { error: 'invalid_authorization_details' },
      });
      expect((await bed.redeem({ 'pre-authorized_code': code })).status).toBe(200);
    },
  );

  it('names a registered client in client_id, and refuses a registered confidential client without its secret', async () => {
    const { code } = await offer();
    const unauthenticated = await bed.redeem({ 'pre-authorized_code': code, client_id: 'demo-rp' });
    expect(unauthenticated).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const res = await bed.redeem({ 'pre-authorized_code': code }, { authorization: basic('demo-rp', RP_SECRET) });
    expect(res.status).toBe(200);
    expect(await bed.verifyAccessToken(res.body.access_token as string)).toMatchObject({ client_id: 'demo-rp' });
    // A wallet's own client_id that is not registered only names it: the grant stays anonymous.
    const other = await offer();
    const wallet = await bed.redeem({ 'pre-authorized_code': other.code, client_id: 'some-wallet' });
    expect(wallet.status).toBe(200);
    expect(await bed.verifyAccessToken(wallet.body.access_token as string)).not.toHaveProperty('client_id');
  });

  it('accepts resource naming the credential issuer (RFC 8707) and refuses any other with invalid_target', async () => {
    const { code } = await offer();
    expect(await bed.redeem({ 'pre-authorized_code': code, resource: 'https://elsewhere.example' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_target' },
    });
    expect((await bed.redeem({ 'pre-authorized_code': code, resource: `${CREDENTIAL_ISSUER}/` })).status).toBe(200);
  });

  it('refuses a malformed request with invalid_request, never a 5xx', async () => {
    expect(await postForm(bed.tokenEndpoint, { grant_type: PRE_AUTH_GRANT })).toMatchObject({
      status: 400,
      body: { error: 'invalid_request' },
    });
    const { code } = await offer();
    const repeated = await fetch(bed.tokenEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=${encodeURIComponent(PRE_AUTH_GRANT)}&pre-authorized_code=${code}&pre-authorized_code=${code}`,
    });
    expect(repeated.status).toBe(400);
  });

  it('refuses the grant in a tenant without a credential issuer, and publishes it only where there is one', async () => {
    const demo = (await (await fetch(`${bed.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(demo.grant_types_supported).toContain(PRE_AUTH_GRANT);
    expect(demo['pre-authorized_grant_anonymous_access_supported']).toBe(true);
    expect(demo.authorization_details_types_supported).toEqual(['openid_credential']);
    const betaCode = (
      await bed.grants.createPreAuthorizedCode('beta', { correlationId: 'b-1', credentialConfigurationIds: ['x'] })
    ).preAuthorizedCode;
    const res = await postFormToHost(bed.tokenEndpoint, BETA_HOST, {
      grant_type: PRE_AUTH_GRANT,
      'pre-authorized_code': betaCode,
    });
    expect(res).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(res.body.error_description).toMatch(/No credential issuer/);
    const beta = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const url = new URL(`${bed.issuer}/.well-known/oauth-authorization-server`);
      request(url, { headers: { host: BETA_HOST } }, (r) => {
        let text = '';
        r.on('data', (c: Buffer) => (text += c.toString('utf8')));
        r.on('end', () => resolve(JSON.parse(text) as Record<string, unknown>));
      })
        .on('error', reject)
        .end();
    });
    expect(beta.grant_types_supported).not.toContain(PRE_AUTH_GRANT);
    expect(beta).not.toHaveProperty('pre-authorized_grant_anonymous_access_supported');
  });

  it('records one audit event per redemption, with the session id on success', async () => {
    const { code, correlationId } = await offer();
    await bed.redeem({ 'pre-authorized_code': code });
    await bed.redeem({ 'pre-authorized_code': code });
    const page = await bed.platform.audit.query({ tenantId: 'demo', limit: 1000 });
    const mine = page.events.filter((e) => e.commandId === 'token-service.token.pre-authorized-code');
    expect(mine.some((e) => e.result === 'success' && e.businessIds?.correlationId === correlationId)).toBe(true);
    expect(mine.some((e) => e.result === 'failure' && e.details?.error === 'invalid_request')).toBe(true);
  });
});

describe('pre-authorized code grant with DPoP required (HAIP 1.0)', () => {
  let bed: Oid4vciBed;
  beforeAll(async () => {
    bed = await startOid4vciBed('pglite', { oid4vci: { requireDpop: true } });
  });
  afterAll(async () => bed?.close());

  it('refuses a request without a proof (invalid_dpop_proof) and accepts one with a proof', async () => {
    const { preAuthorizedCode } = await bed.grants.createPreAuthorizedCode('demo', {
      correlationId: 'haip-1',
      credentialConfigurationIds: ['pid-sd-jwt'],
    });
    expect(await bed.redeem({ 'pre-authorized_code': preAuthorizedCode })).toMatchObject({
      status: 400,
      body: { error: 'invalid_dpop_proof' },
    });
    const key = await clientKey();
    const proof = await key.proof({ httpMethod: 'POST', httpUrl: bed.tokenEndpoint, now: bed.clock.now() });
    const res = await bed.redeem({ 'pre-authorized_code': preAuthorizedCode }, { dpop: proof });
    expect(res).toMatchObject({ status: 200, body: { token_type: 'DPoP' } });
    expect(await bed.verifyAccessToken(res.body.access_token as string)).toMatchObject({ cnf: { jkt: key.jkt } });
  });

  it('binds and requires a proof even while DPoP is off for the other grants', async () => {
    const off = await startOid4vciBed('pglite', { dpop: false, oid4vci: { requireDpop: true } });
    try {
      const { preAuthorizedCode } = await off.grants.createPreAuthorizedCode('demo', {
        correlationId: 'haip-dpop-off',
        credentialConfigurationIds: ['pid-sd-jwt'],
      });
      expect(await off.redeem({ 'pre-authorized_code': preAuthorizedCode })).toMatchObject({
        status: 400,
        body: { error: 'invalid_dpop_proof' },
      });
      const key = await clientKey();
      const proof = await key.proof({ httpMethod: 'POST', httpUrl: off.tokenEndpoint, now: off.clock.now() });
      const res = await off.redeem({ 'pre-authorized_code': preAuthorizedCode }, { dpop: proof });
      expect(res).toMatchObject({ status: 200, body: { token_type: 'DPoP' } });
      expect(await off.verifyAccessToken(res.body.access_token as string)).toMatchObject({ cnf: { jkt: key.jkt } });
      const meta = (await (await fetch(`${off.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<
        string,
        unknown
      >;
      expect(meta.dpop_signing_alg_values_supported).toEqual(['ES256', 'ES384']);
    } finally {
      await off.close();
    }
  });
});
