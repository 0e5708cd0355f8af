import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestPlatform,
  DATABASE_KINDS,
  startTestIssuer,
  type TestIssuer,
  type TestPlatform,
} from '@tessera/platform/testing';
import { RECONCILIATION_BASE_PATH } from '../../src/index.js';
import { BRIDGE_MIGRATIONS, buildBridgeApp, type BridgeApp } from '../support/bridge-app.js';

/**
 * Issue 13 §9: the bridge's erasure (000 §4.3 DELETE /{internalIdentityId}) asks the token service for its part
 * through a port and writes none of its tables. A bridge composed without the token service (its database has only
 * the platform's, the identity store's and the bridge's tables, and no revocation is wired) erases all the same.
 */
describe.each(DATABASE_KINDS)('erasure in a bridge without the token service (%s)', (kind) => {
  let t: TestPlatform;
  let issuer: TestIssuer;
  let b: BridgeApp;
  let token: string;

  beforeAll(async () => {
    issuer = await startTestIssuer('tessera-reconciliation');
    t = await createTestPlatform(kind, {
      migrations: BRIDGE_MIGRATIONS,
      overrides: {
        auth: {
          issuers: [{ issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: issuer.audience, tenants: ['demo'] }],
        },
        rateLimit: { enabled: false },
      },
    });
    b = await buildBridgeApp(t.platform, {
      bridge: {
        reconciliation: {
          clients: {
            'recon-alone': {
              scopes: ['reconciliation:read', 'reconciliation:write', 'reconciliation:delete'],
              'projected-claims': ['email'],
              'auxiliary-categories': ['crm'],
              issuer: issuer.issuer,
            },
          },
        },
      },
    });
    token = await issuer.sign({
      sub: 'recon-alone',
      azp: 'recon-alone',
      tenant_id: 'demo',
      scope: 'reconciliation:read reconciliation:write reconciliation:delete',
    });
  });
  afterAll(async () => {
    await b?.close();
    await t?.close();
    await issuer?.close();
  });

  const call = (method: 'GET' | 'PUT' | 'DELETE', path: string, payload?: unknown) =>
    b.app.inject({
      method,
      url: `${RECONCILIATION_BASE_PATH}${path}`,
      headers: { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });

  it('erases the identity, its auxiliary data and its audit trail says no grant was revoked', async () => {
    const tokenTables = await t.platform.db.withPlatform((sql) =>
      sql.query<{ present: boolean }>("SELECT to_regclass('oauth_grants') IS NOT NULL AS present"),
    );
    expect(tokenTables.rows[0]!.present).toBe(false);
    const identityId = await t.platform.db.withTenant('demo', async (sql) => {
      const identity = await b.identities.createIdentity(
        { tenantId: 'demo', sql },
        {
          claims: { email: 'alone@demo.example' },
          assurance: { acr: 'urn:test:loa:substantial', amr: ['federation'] },
        },
      );
      return identity.internalIdentityId;
    });
    expect((await call('PUT', `/${identityId}/auxiliary/crm`, { data: { note: 'x' } })).statusCode).toBe(201);

    const erased = await call('DELETE', `/${identityId}`);
    expect(erased.statusCode).toBe(204);
    expect((await call('GET', `/${identityId}`)).json()).toMatchObject({ error: 'identity_not_found' });

    const { events } = await t.platform.audit.query({ tenantId: 'demo', type: 'gdpr_erasure' });
    expect(events.find((e) => e.businessIds.internalIdentityId === identityId)?.details).toMatchObject({
      client_id: 'recon-alone',
      existed: true,
      auxiliaryRecords: 1,
      tokenGrants: 0,
      refreshTokens: 0,
    });
    const revocations = await t.platform.audit.query({
      tenantId: 'demo',
      commandId: 'token-service.grants.revoke-subject',
    });
    expect(revocations.events).toEqual([]);
    expect(await t.platform.audit.verify('demo')).toMatchObject({ ok: true });
  });
});
