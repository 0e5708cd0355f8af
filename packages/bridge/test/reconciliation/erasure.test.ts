import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as client from 'openid-client';
import { decodeJwt } from 'jose';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import {
  createTestIssuer,
  createTestWallet,
  issueCredentialToWallet,
  type StatusListServer,
  type TestIssuer,
} from '@tessera/test-wallet';
import { RP_REDIRECT, RP_SECRET } from '../../../token-service/test/support/harness.js';
import { bridgeConfigFor, holderKeyOf } from '../support/wallet-flow.js';
import { Browser } from './support/browser.js';
import { startReconBed, unique, type ReconBed } from './support/recon-bed.js';

/**
 * GDPR erasure (000 §3.3, §4.3 DELETE /{internalIdentityId}, §6) of an identity that has everything: created by a
 * real federated login at our token service (federation binding, a grant with access and refresh tokens and the
 * released claims), a wallet bound to it and a wallet session completed with it at the bridge, auxiliary data of
 * three categories. Afterwards no table holds its id (the append-only audit excepted, which holds it in the erasure
 * event by design), its claims, its holder key, its lookup MACs or its data; its tokens are dead; the lookup answers
 * 404; the audit chain verifies and holds one gdpr_erasure event per call, without personal data.
 */
describe.each(DATABASE_KINDS)('reconciliation API erasure (%s)', (kind) => {
  let bed: ReconBed;
  let walletIssuer: TestIssuer;
  let statusServer: StatusListServer;
  let rp: client.Configuration;

  beforeAll(async () => {
    walletIssuer = await createTestIssuer();
    statusServer = await walletIssuer.statusListServer();
    bed = await startReconBed({
      kind,
      upstream: true,
      listen: true,
      bridge: bridgeConfigFor(walletIssuer, statusServer.url),
    });
    rp = await client.discovery(new URL(bed.ours.issuer), 'demo-rp', RP_SECRET, undefined, {
      execute: [client.allowInsecureRequests],
    });
  });
  afterAll(async () => {
    await bed?.close();
    await walletIssuer?.close();
  });

  /** A federated login of the provider's first demo person at our token service, as a relying party runs it. */
  async function federatedLogin() {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(rp, {
      redirect_uri: RP_REDIRECT,
      scope: 'openid profile email service_id offline_access',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const browser = new Browser();
    const login = await browser.follow(url.href, RP_REDIRECT);
    const user = bed.ours.idp!.users[0]!;
    const back = await browser.signIn(login.url, login.page!, user.username, user.password, RP_REDIRECT);
    const tokens = await client.authorizationCodeGrant(rp, new URL(back), {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    return { tokens, user, identityId: String(decodeJwt(tokens.access_token).sub) };
  }

  /** Tables whose rows (as text) contain `needle`, in every tenant. */
  async function tablesHolding(needle: string, options: { exceptAudit?: boolean } = {}): Promise<string[]> {
    return bed.platform.db.withPlatform(async (sql) => {
      const tables = (
        await sql.query<{ name: string }>(
          `SELECT table_name AS name FROM information_schema.tables
            WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
        )
      ).rows.map((r) => r.name);
      const holding: string[] = [];
      for (const table of tables) {
        if (options.exceptAudit && table.startsWith('audit_')) continue;
        const hit = await sql.query(`SELECT 1 FROM "${table}" AS r WHERE strpos(r::text, $1) > 0 LIMIT 1`, [needle]);
        if (hit.rowCount > 0) holding.push(table);
      }
      return holding;
    });
  }

  const postForm = async (path: string, form: Record<string, string>) => {
    const res = await fetch(`${bed.ours.issuer}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`demo-rp:${RP_SECRET}`).toString('base64')}`,
      },
      body: new URLSearchParams(form).toString(),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('removes every trace of the identity in one erasure, answers 204 twice, and keeps the audit chain whole', async () => {
    // 1. The identity, by a federated login (binding, grant, tokens).
    const { tokens, user, identityId } = await federatedLogin();
    const serviceId = String(user.claims.service_id);
    const eppn = user.claims.eduperson_principal_name;
    expect(tokens.refresh_token).toBeTruthy();

    // 2. A wallet bound to it, and a wallet session completed with it.
    const claims = { ...user.claims, service_id: serviceId };
    const wallet = await createTestWallet();
    await issueCredentialToWallet(walletIssuer, wallet, { format: 'dc+sd-jwt', claims });
    const holderKey = await holderKeyOf(wallet.holderJwk);
    await bed.platform.db.withTenant('demo', (sql) =>
      bed.b.identities.bindWallet({ tenantId: 'demo', sql }, identityId, holderKey),
    );
    const portal = { authorization: `Bearer ${await bed.ourToken('portal-backend')}` };
    const created = await bed.b.app.inject({
      method: 'POST',
      url: '/auth/oid4vp/sessions',
      headers: portal,
      payload: { queryId: 'wallet-login' },
    });
    expect(created.statusCode).toBe(200);
    const { sessionId, requestUri } = created.json() as { sessionId: string; requestUri: string };
    expect((await wallet.respond(requestUri)).status).toBe(200);
    const completed = await bed.b.app.inject({
      method: 'POST',
      url: `/auth/oid4vp/sessions/${sessionId}/complete`,
      headers: portal,
    });
    expect(completed.json()).toMatchObject({ userId: identityId, claimSource: 'CANONICAL_BINDING' });

    // 3. Auxiliary data of three categories, by both clients.
    const full = await bed.ourToken('recon-full');
    const partner = (await bed.second.token('partner-system')).accessToken;
    const marker = unique('erasure-marker');
    for (const [token, category] of [
      [full, 'crm'],
      [full, 'notes'],
      [partner, 'partner'],
    ] as const) {
      const res = await bed.call({
        method: 'PUT',
        path: `/${identityId}/auxiliary/${category}`,
        token,
        body: { data: { marker } },
      });
      expect(res.status).toBe(201);
    }
    const lookupBody = { identifierHash: await bed.hash(serviceId), identifierType: 'SERVICE_ID' };
    const before = await bed.call({ method: 'POST', path: '/lookup', token: full, body: lookupBody });
    expect(before.body).toMatchObject({ internalIdentityId: identityId, auxiliaryCategories: ['crm', 'notes'] });

    // What must disappear, and a check that the search sees it while it is there.
    const macs = [await bed.hash(serviceId), await bed.hash(eppn), await bed.hash(holderKey)];
    const personal = [serviceId, eppn, user.claims.email, user.sub, holderKey];
    expect(await tablesHolding(identityId, { exceptAudit: true })).toEqual(
      expect.arrayContaining([
        'bridge_sessions',
        'identities',
        'oauth_grants',
        'reconciliation_auxiliary_data',
        'wallet_bindings',
      ]),
    );
    expect(await tablesHolding(macs[0]!)).toEqual(['identity_identifiers']);
    // The token service holds the grant's claims sealed (issue 13 §4): never the service id in clear.
    expect(await tablesHolding(serviceId)).not.toContain('oauth_grants');
    const sealedBefore = await bed.platform.db.withTenant('demo', (sql) =>
      sql.query("SELECT 1 FROM oauth_grants WHERE client_id = 'demo-rp' AND sealed_claims IS NOT NULL"),
    );
    expect(sealedBefore.rowCount).toBe(1);

    // 4. Erasure, twice.
    for (let i = 0; i < 2; i++) {
      const res = await bed.call({ method: 'DELETE', path: `/${identityId}`, token: full });
      expect(res.status).toBe(204);
      expect(res.raw).toBe('');
    }

    // 5. Gone for the API.
    const after = await bed.call({ method: 'POST', path: '/lookup', token: full, body: lookupBody });
    expect(after.status).toBe(404);
    expect(after.body.error).toBe('identity_not_found');
    expect((await bed.call({ method: 'GET', path: `/${identityId}`, token: full })).body.error).toBe(
      'identity_not_found',
    );
    expect((await bed.call({ method: 'GET', path: `/${identityId}/auxiliary/crm`, token: full })).body.error).toBe(
      'identity_not_found',
    );

    // 6. Its tokens are dead: the refresh token is refused, the access token introspects inactive.
    const refresh = await postForm('/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
    expect(await postForm('/introspect', { token: tokens.access_token })).toEqual({
      status: 200,
      body: { active: false },
    });
    expect((await postForm('/introspect', { token: tokens.refresh_token! })).body).toEqual({ active: false });

    // 7. No trace in any table: not the id (outside the audit), not a claim, key, MAC or datum (anywhere).
    expect(await tablesHolding(identityId, { exceptAudit: true })).toEqual([]);
    for (const needle of [...personal, ...macs, marker]) expect(await tablesHolding(needle), needle).toEqual([]);
    const grants = await bed.platform.db.withTenant('demo', (sql) =>
      sql.query<{
        subject: string | null;
        claims: unknown;
        sealed_claims: string | null;
        revoked_at: Date | null;
        revoked_reason: string | null;
      }>(
        "SELECT subject, claims, sealed_claims, revoked_at, revoked_reason FROM oauth_grants WHERE client_id = 'demo-rp'",
      ),
    );
    expect(grants.rows).toEqual([
      {
        subject: null,
        claims: {},
        sealed_claims: null,
        revoked_at: expect.any(Date),
        revoked_reason: 'gdpr_erasure',
      },
    ]);

    // 8. The audit chain verifies and holds the two erasures: client, identity, time; nothing personal.
    expect(await bed.platform.audit.verify('demo')).toMatchObject({ ok: true });
    const { events } = await bed.platform.audit.query({ tenantId: 'demo', type: 'gdpr_erasure' });
    const erasures = events.filter((e) => e.businessIds.internalIdentityId === identityId);
    expect(erasures).toHaveLength(2);
    expect(erasures.map((e) => e.details.existed).sort()).toEqual([false, true]);
    for (const event of erasures) {
      expect(event).toMatchObject({
        commandId: 'reconciliation-api.identities.erase',
        principalId: 'recon-full',
        result: 'success',
        details: { client_id: 'recon-full', erased_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
      });
      const text = JSON.stringify(event);
      for (const needle of [...personal, ...macs, marker]) expect(text).not.toContain(needle);
    }
    expect(erasures.find((e) => e.details.existed)!.details).toMatchObject({
      auxiliaryRecords: 3,
      sessions: 1,
      tokenGrants: 1,
      refreshTokens: 1,
    });

    // 9. The grants were revoked by the token service itself (its port, issue 13 §9), audited in its name with the
    // erasure's correlation id: one revocation per erasure, the second finding nothing left.
    const revocations = (
      await bed.platform.audit.query({ tenantId: 'demo', commandId: 'token-service.grants.revoke-subject' })
    ).events.filter((e) => e.businessIds.subject === identityId);
    expect(revocations.map((e) => e.correlationId).sort()).toEqual(erasures.map((e) => e.correlationId).sort());
    expect(revocations.map((e) => e.details.grants).sort()).toEqual([0, 1]);
    for (const event of revocations)
      expect(event).toMatchObject({
        principalId: 'recon-full',
        result: 'success',
        details: { reason: 'gdpr_erasure' },
      });
  });

  it('erases an identity that never existed with 204, audited all the same', async () => {
    const token = await bed.ourToken('recon-full');
    const nobody = crypto.randomUUID();
    expect((await bed.call({ method: 'DELETE', path: `/${nobody}`, token })).status).toBe(204);
    const { events } = await bed.platform.audit.query({ tenantId: 'demo', type: 'gdpr_erasure' });
    expect(events.find((e) => e.businessIds.internalIdentityId === nobody)?.details).toMatchObject({
      client_id: 'recon-full',
      existed: false,
      auxiliaryRecords: 0,
    });
  });

  it('needs reconciliation:delete: a client with read and write only cannot erase', async () => {
    const serviceId = unique('keep');
    const id = await bed.createIdentity({ service_id: serviceId });
    const reader = await bed.ourToken('recon-full', 'reconciliation:read reconciliation:write');
    expect((await bed.call({ method: 'DELETE', path: `/${id}`, token: reader })).status).toBe(403);
    const lookup = await bed.call({
      method: 'POST',
      path: '/lookup',
      token: reader,
      body: { identifierHash: await bed.hash(serviceId), identifierType: 'SERVICE_ID' },
    });
    expect(lookup.body.internalIdentityId).toBe(id);
  });
});
