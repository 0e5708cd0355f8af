import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { generateDpopKeyPair, type DpopKeySigner } from '@tessera/pkce-dpop';
import { buildBridgeApp } from '../support/bridge-app.js';
import { startSecondProvider } from './support/second-provider.js';
import { AUDIENCE, READ, startReconBed, unique, type ApiResponse, type ReconBed } from './support/recon-bed.js';

/**
 * Authentication and authorization of the external reconciliation API (000 §5, §7; RFC 6750; RFC 9449): tokens
 * of our token service (client_credentials) and of a second, independent authorization server (oidc-provider),
 * every 401 and 403 row, the switch-off, DPoP (bound tokens, proofs, replay) and tenancy.
 */
const expectInvalidToken = (res: ApiResponse) => {
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ error: 'invalid_token', error_description: expect.any(String) });
};

describe.each(DATABASE_KINDS)('reconciliation API authentication (%s)', (kind) => {
  let bed: ReconBed;
  let identityId: string;
  let full: string;
  let partner: string;

  beforeAll(async () => {
    bed = await startReconBed({ kind });
    identityId = await bed.createIdentity({ service_id: unique('auth'), email: 'auth@uni.example' });
    full = await bed.ourToken('recon-full');
    partner = (await bed.second.token('partner-system')).accessToken;
  });
  afterAll(async () => bed?.close());

  const claimsOf = (token: string, scheme: 'Bearer' | 'DPoP' = 'Bearer', headers: Record<string, string> = {}) =>
    bed.call({ method: 'GET', path: `/${identityId}/claims`, token, scheme, headers });

  it('accepts client_credentials tokens of our token service and of the second provider', async () => {
    const ours = await claimsOf(full);
    expect(ours.status).toBe(200);
    expect(ours.body).toEqual({ email: 'auth@uni.example', service_id: expect.any(String) });
    const theirs = await claimsOf(partner);
    expect(theirs.status).toBe(200);
    expect(theirs.body).toEqual({});
  });

  it('answers 401 invalid_token without a token, with another scheme or a malformed one', async () => {
    const none = await bed.call({ method: 'GET', path: `/${identityId}/claims` });
    expectInvalidToken(none);
    expect(none.headers['www-authenticate']).toBe(`Bearer realm="${AUDIENCE}", DPoP algs="ES256 ES384"`);
    expectInvalidToken(
      await bed.call({ method: 'GET', path: `/${identityId}/claims`, headers: { authorization: 'Basic YTpi' } }),
    );
    expectInvalidToken(
      await bed.call({ method: 'GET', path: `/${identityId}/claims`, headers: { authorization: 'Bearer' } }),
    );
    const garbage = await claimsOf('not-a-jwt');
    expectInvalidToken(garbage);
    expect(garbage.headers['www-authenticate']).toMatch(
      /^Bearer realm="tessera-reconciliation", error="invalid_token"/,
    );
    // Nothing about the request beyond authentication is looked at: a bad body still answers 401.
    expectInvalidToken(
      await bed.call({ method: 'POST', path: '/lookup', body: '{{{', headers: { 'content-type': 'application/json' } }),
    );
  });

  it('answers 401 for a badly signed, tampered, unsigned or foreign token', async () => {
    const [h, p, sig] = full.split('.') as [string, string, string];
    const flipped = `${h}.${p}.${sig.slice(0, -4)}${sig.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    expectInvalidToken(await claimsOf(flipped));
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    const widened = Buffer.from(
      JSON.stringify({ ...payload, azp: 'recon-full', scope: 'reconciliation:delete' }),
    ).toString('base64url');
    expectInvalidToken(await claimsOf(`${h}.${widened}.${sig}`));
    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    expectInvalidToken(await claimsOf(`${none}.${p}.`));
    // A real authorization server this deployment does not trust.
    const stranger = await startSecondProvider({ clientIds: ['partner-system'], audience: AUDIENCE, scopes: [READ] });
    try {
      expectInvalidToken(await claimsOf((await stranger.token('partner-system')).accessToken));
    } finally {
      await stranger.close();
    }
  });

  it('answers 401 for a token of another audience and for an expired token', async () => {
    expectInvalidToken(await claimsOf(await bed.ourToken('recon-other-audience')));
    const short = await bed.ourToken('recon-short');
    expect((await claimsOf(short)).status).toBe(200);
    // Its lifetime is two seconds and the platform tolerates no skew here: wait it out, then it is refused.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const expired = await claimsOf(short);
    expectInvalidToken(expired);
    expect(expired.body.error_description).toMatch(/expired/);
  });

  it('binds a client to its issuer: the same client id minted by another trusted issuer is not that client (issue 13 §1)', async () => {
    const impostor = (await bed.second.token('recon-full')).accessToken;
    const res = await claimsOf(impostor);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      error: 'insufficient_scope',
      error_description: 'The client is not configured for this API.',
    });
    // The genuine client, from our token service, is served.
    expect((await claimsOf(await bed.ourToken('recon-full'))).status).not.toBe(403);
  });

  it('answers 403 insufficient_scope for a client that is not configured, audited as denied', async () => {
    for (const token of [
      await bed.ourToken('recon-unlisted'),
      (await bed.second.token('partner-unlisted')).accessToken,
    ]) {
      const res = await claimsOf(token);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: 'insufficient_scope',
        error_description: 'The client is not configured for this API.',
      });
      expect(res.headers['www-authenticate']).toMatch(
        /^Bearer .*error="insufficient_scope".*scope="reconciliation:read"/,
      );
    }
    const { events } = await bed.platform.audit.query({ tenantId: 'demo', type: 'authorization.denied' });
    const reasons = events.filter((e) => e.commandId === 'reconciliation-api.identities.claims').map((e) => e.details);
    expect(reasons).toEqual(
      expect.arrayContaining([
        { reason: 'client_not_configured', client_id: 'recon-unlisted' },
        { reason: 'client_not_configured', client_id: 'partner-unlisted' },
      ]),
    );
  });

  it('answers 403 insufficient_scope when the token or the client configuration lacks the scope', async () => {
    const data = { data: { a: 1 } };
    // The token holds reconciliation:read only.
    const reader = await bed.ourToken('recon-reader');
    expect(
      (await bed.call({ method: 'PUT', path: `/${identityId}/auxiliary/crm`, token: reader, body: data })).body.error,
    ).toBe('insufficient_scope');
    expect((await bed.call({ method: 'DELETE', path: `/${identityId}/auxiliary/crm`, token: reader })).status).toBe(
      403,
    );
    expect((await bed.call({ method: 'DELETE', path: `/${identityId}`, token: reader })).status).toBe(403);
    // The token holds reconciliation:write, the client's configuration grants read only.
    const narrow = await bed.ourToken('recon-narrow');
    const put = await bed.call({ method: 'PUT', path: `/${identityId}/auxiliary/notes`, token: narrow, body: data });
    expect(put.status).toBe(403);
    expect(put.body.error).toBe('insufficient_scope');
    // A token of a fully configured client, asked for read only.
    const readOnly = await bed.ourToken('recon-full', READ);
    expect((await bed.call({ method: 'DELETE', path: `/${identityId}`, token: readOnly })).status).toBe(403);
    // None of them changed anything.
    expect((await bed.call({ method: 'GET', path: `/${identityId}`, token: full })).body.auxiliaryCategories).toEqual(
      [],
    );
  });

  it('is switched off entirely by enabled: false (404 for its paths)', async () => {
    const off = await buildBridgeApp(bed.platform, { bridge: { reconciliation: { enabled: false } } });
    try {
      for (const [method, url] of [
        ['GET', `/api/external/v1/reconciliation/${identityId}`],
        ['GET', `/api/external/v1/reconciliation/${identityId}/claims`],
        ['POST', '/api/external/v1/reconciliation/lookup'],
        ['DELETE', `/api/external/v1/reconciliation/${identityId}`],
      ] as const) {
        const res = await off.app.inject({ method, url, headers: { authorization: `Bearer ${full}` } });
        expect(res.statusCode).toBe(404);
      }
    } finally {
      await off.close();
    }
  });

  describe('DPoP', () => {
    let key: DpopKeySigner;
    let bound: string;

    beforeAll(async () => {
      key = await generateDpopKeyPair('ES256');
      const issued = await bed.second.token('partner-system', { dpop: key });
      expect(issued.tokenType).toBe('DPoP');
      bound = issued.accessToken;
    });

    const path = () => `/${identityId}/claims`;

    it("accepts a DPoP-bound token with a valid proof (200), remembering its jti in the platform's one replay table", async () => {
      const res = await claimsOf(bound, 'DPoP', { dpop: await bed.proof(key, 'GET', path(), bound) });
      expect(res.status).toBe(200);
      const rows = await bed.platform.db.withPlatform((sql) =>
        sql.query<{ n: string }>('SELECT count(*)::text AS n FROM dpop_replay'),
      );
      expect(Number(rows.rows[0]!.n)).toBeGreaterThan(0);
    });

    it('refuses a DPoP-bound token presented as Bearer (401, RFC 9449 §7.2)', async () => {
      const res = await claimsOf(bound);
      expectInvalidToken(res);
      expect(res.headers['www-authenticate']).toMatch(/^DPoP error="invalid_token"/);
    });

    it('refuses a replayed proof (401 invalid_dpop_proof in the challenge)', async () => {
      const proof = await bed.proof(key, 'GET', path(), bound);
      expect((await claimsOf(bound, 'DPoP', { dpop: proof })).status).toBe(200);
      const replay = await claimsOf(bound, 'DPoP', { dpop: proof });
      expectInvalidToken(replay);
      expect(replay.headers['www-authenticate']).toMatch(/^DPoP error="invalid_dpop_proof"/);
    });

    it('refuses proofs for another request, another token, another key, or none', async () => {
      const other = await generateDpopKeyPair('ES256');
      const cases: Array<[string, Record<string, string>, RegExp]> = [
        ['missing', {}, /invalid_dpop_proof/],
        ['other method', { dpop: await bed.proof(key, 'POST', path(), bound) }, /invalid_dpop_proof/],
        ['other path', { dpop: await bed.proof(key, 'GET', `/${identityId}`, bound) }, /invalid_dpop_proof/],
        ['other token', { dpop: await bed.proof(key, 'GET', path(), partner) }, /invalid_dpop_proof/],
        ['other key', { dpop: await bed.proof(other, 'GET', path(), bound) }, /invalid_token/],
      ];
      for (const [, headers, challenge] of cases) {
        const res = await claimsOf(bound, 'DPoP', headers);
        expectInvalidToken(res);
        expect(res.headers['www-authenticate']).toMatch(challenge);
      }
    });

    it('refuses the DPoP scheme with a token that is not bound', async () => {
      const res = await claimsOf(partner, 'DPoP', { dpop: await bed.proof(key, 'GET', path(), partner) });
      expectInvalidToken(res);
      expect(res.headers['www-authenticate']).toMatch(/^DPoP error="invalid_token"/);
    });

    it('refuses the DPoP scheme when DPoP is switched off', async () => {
      const off = await buildBridgeApp(bed.platform, {
        bridge: {
          reconciliation: {
            clients: { 'partner-system': { scopes: [READ], 'projected-claims': [], 'auxiliary-categories': [] } },
            dpop: { enabled: false },
          },
        },
      });
      try {
        const res = await off.app.inject({
          method: 'GET',
          url: `/api/external/v1/reconciliation${path()}`,
          headers: { authorization: `DPoP ${bound}`, dpop: await bed.proof(key, 'GET', path(), bound) },
        });
        expect(res.statusCode).toBe(401);
        expect(res.json()).toMatchObject({ error: 'invalid_token' });
      } finally {
        await off.close();
      }
    });
  });

  describe('tenancy', () => {
    it('takes the tenant from the token: a client of tenant beta does not see tenant demo', async () => {
      const serviceId = unique('tenant');
      await bed.createIdentity({ service_id: serviceId });
      const body = { identifierHash: await bed.hash(serviceId), identifierType: 'SERVICE_ID' };
      expect((await bed.call({ method: 'POST', path: '/lookup', token: full, body })).status).toBe(200);
      const beta = (await bed.second.token('beta-partner')).accessToken;
      const res = await bed.call({ method: 'POST', path: '/lookup', token: beta, body });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('identity_not_found');
    });

    it('ignores X-Tenant-Id, and refuses a token of tenant demo at the host of tenant beta', async () => {
      expect((await claimsOf(full, 'Bearer', { 'x-tenant-id': 'beta' })).status).toBe(200);
      const res = await claimsOf(full, 'Bearer', { host: 'beta.localhost' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'access_denied', error_description: expect.any(String) });
    });
  });
});
