import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { sealPersonalDataJob } from '../src/create-token-service.js';
import { RP_SECRET, startTokenService, type TokenServiceHarness } from './support/harness.js';
import { basic, mintCode, postForm } from './support/codes.js';

/**
 * Issue 13 §4: the token service keeps no personal data in plaintext at rest. A grant's claims are sealed (envelope
 * encryption bound to tenant, grant and column) and still reach the ID token and userinfo; rows written before
 * the migration are sealed by the job, which empties their plaintext column.
 */
describe.each(DATABASE_KINDS)('sealed personal data in the token service (%s)', (kind) => {
  let h: TokenServiceHarness;
  beforeAll(async () => {
    h = await startTokenService({ kind, upstream: false });
  });
  afterAll(async () => h?.close());

  const exchange = async () => {
    const c = await mintCode(h);
    const res = await postForm(
      `${h.issuer}/token`,
      { grant_type: 'authorization_code', code: c.code, code_verifier: c.verifier, redirect_uri: c.redirectUri },
      { authorization: basic('demo-rp', RP_SECRET) },
    );
    expect(res.status).toBe(200);
    return res.body as { access_token: string; id_token: string };
  };
  const grantRow = (grantId: string) =>
    h.platform.db.withTenant('demo', async (sql) => {
      const r = await sql.query<{ claims: Record<string, unknown>; sealed_claims: string | null; whole: string }>(
        'SELECT claims, sealed_claims, row_to_json(g)::text AS whole FROM oauth_grants g WHERE id = $1',
        [grantId],
      );
      return r.rows[0]!;
    });
  const userinfo = async (accessToken: string) => {
    const res = await fetch(`${h.issuer}/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(res.status).toBe(200);
    return (await res.json()) as Record<string, unknown>;
  };

  it('stores a grant’s claims sealed only, and releases them in the ID token and at userinfo', async () => {
    const tokens = await exchange();
    const grantId = String(decodeJwt(tokens.access_token).sid);
    const row = await grantRow(grantId);
    expect(row.claims).toEqual({});
    expect(row.sealed_claims).toMatch(/^e1\./);
    for (const value of ['alice@demo.example', 'svc-alice', 'Alice']) expect(row.whole).not.toContain(value);
    expect(decodeJwt(tokens.id_token)).toMatchObject({ email: 'alice@demo.example', given_name: 'Alice' });
    expect(await userinfo(tokens.access_token)).toMatchObject({ email: 'alice@demo.example', service_id: 'svc-alice' });
  });

  it('seals the plaintext of rows written before the migration, and they still serve', async () => {
    const tokens = await exchange();
    const grantId = String(decodeJwt(tokens.access_token).sid);
    // A row as the earlier version wrote it: the claims in the plaintext column, nothing sealed.
    await h.platform.db.withTenant('demo', (sql) =>
      sql.query(`UPDATE oauth_grants SET claims = $2::jsonb, sealed_claims = NULL WHERE id = $1`, [
        grantId,
        JSON.stringify({ email: 'legacy@demo.example', service_id: 'svc-legacy' }),
      ]),
    );
    expect(await userinfo(tokens.access_token)).toMatchObject({ email: 'legacy@demo.example' });

    await sealPersonalDataJob(h.ctx).run(new AbortController().signal);
    const row = await grantRow(grantId);
    expect(row.claims).toEqual({});
    expect(row.sealed_claims).toMatch(/^e1\./);
    expect(row.whole).not.toContain('legacy@demo.example');
    expect(await userinfo(tokens.access_token)).toMatchObject({
      email: 'legacy@demo.example',
      service_id: 'svc-legacy',
    });
  });

  it('a sealed value moved onto another grant does not open there', async () => {
    const first = await exchange();
    const second = await exchange();
    const [a, b] = [first, second].map((t) => String(decodeJwt(t.access_token).sid));
    await h.platform.db.withTenant('demo', (sql) =>
      sql.query(
        `UPDATE oauth_grants SET sealed_claims = (SELECT sealed_claims FROM oauth_grants WHERE id = $1) WHERE id = $2`,
        [a, b],
      ),
    );
    const res = await fetch(`${h.issuer}/userinfo`, { headers: { authorization: `Bearer ${second.access_token}` } });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(await res.json())).not.toContain('alice@demo.example');
  });
});
