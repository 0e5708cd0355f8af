import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRoleApp,
  loadConfig,
  platformMigrations,
  withSymmetricKeysMigration,
  type RoleApp,
} from '@tessera/platform';
import {
  createTestPlatform,
  DATABASE_KINDS,
  freePort,
  startTestIssuer,
  type TestIssuer,
  type TestPlatform,
} from '@tessera/platform/testing';
import { BridgeConfigSchema, bridgeMigrations, registerBridgeRoutes } from '@tessera/bridge';
import { identityMigrations, PostgresIdentityStore } from '@tessera/identity';
import { createTestWallet, DEMO_VCT, type TestWallet } from '@tessera/test-wallet';
import type { JWK } from 'jose';
import { registerStatusListsRoutes, statusListsMigrations } from '../src/index.js';
import { didJwkOf } from '../src/domain/did-jwk.js';
import { signListJwt } from '../src/publication/sign-list.js';
import { testConfig } from './support.js';

/**
 * Issue 16 "End to end through the bridge": a credential whose status entry is in a list of this service is
 * accepted by the bridge; once the entry is revoked (or suspended) through the API it is refused, the rejection
 * naming the `status` check. The credential and the list are signed by the same issuer key (`issuer:<tenant>`, a
 * configured extra key alias, did:jwk issuer), as the issuance context will do; the bridge trusts that issuer and
 * fetches the list over HTTP from the status-lists app. Lists are published with a ttl of one second (and the
 * bridge's lower bound of its cache set to zero) so that the bridge's cache (Token Status List §8.3) lets a change
 * through within the test.
 */
const PERSON = {
  service_id: 'u-2001',
  eduperson_principal_name: 'bea@uni.example',
  email: 'bea@uni.example',
  given_name: 'Bea',
  family_name: 'Roe',
};
const ISSUER_KEY = 'issuer:demo';

const b64json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe.each(DATABASE_KINDS)('a credential with a status entry of ours, through the bridge (%s)', (kind) => {
  let t: TestPlatform;
  let tokens: TestIssuer;
  let statusApp: RoleApp;
  let bridgeApp: RoleApp;
  let adminToken: string;
  let portalToken: string;
  let did: string;

  beforeAll(async () => {
    tokens = await startTestIssuer();
    t = await createTestPlatform(kind, {
      migrations: withSymmetricKeysMigration([
        ...platformMigrations,
        ...identityMigrations,
        ...bridgeMigrations,
        ...statusListsMigrations,
      ]),
      overrides: {
        auth: { issuers: [{ issuer: tokens.issuer, jwksUri: tokens.jwksUri, audience: tokens.audience }] },
        rateLimit: { enabled: false },
      },
    });
    const platform = t.platform;
    await platform.keys.ensure(ISSUER_KEY, 'ES256');
    did = didJwkOf(await platform.keys.publicJwk(ISSUER_KEY));

    statusApp = await createRoleApp(platform, { role: 'status-lists', title: 'status-lists', family: 'oauth' });
    const statusPort = await freePort();
    const statusOrigin = `http://127.0.0.1:${statusPort}`;
    await registerStatusListsRoutes(statusApp, platform, {
      config: testConfig({ publicBaseUrl: statusOrigin, ttlSeconds: 1, extraKeyAliases: ['issuer:{tenant}'] }),
    });
    await statusApp.listen({ host: '127.0.0.1', port: statusPort });

    const bridge = loadConfig(BridgeConfigSchema, {
      env: {},
      overrides: {
        walletLogin: { format: 'dc+sd-jwt', type: DEMO_VCT, trustedIssuers: [did] },
        statusListCache: { allowPrivateNetworkOrigins: [statusOrigin], minTtlSeconds: 0 },
      },
    });
    bridgeApp = await createRoleApp(platform, { role: 'bridge', title: 'bridge', family: 'oauth' });
    const identities = new PostgresIdentityStore({
      keys: platform.keys,
      clock: platform.clock,
      serviceClaim: 'service_id',
    });
    await registerBridgeRoutes(bridgeApp, platform, { config: bridge, identities });
    await bridgeApp.listen({ host: 'localhost', port: 0 });
    bridge.publicBaseUrl = `http://localhost:${(bridgeApp.server.address() as AddressInfo).port}`;

    adminToken = await tokens.sign(
      { sub: 'alice', tenant_id: 'demo', roles: ['tenant-admin'] },
      { expiresInSeconds: 3600 },
    );
    portalToken = await tokens.sign(
      {
        sub: 'portal-backend',
        azp: 'portal-backend',
        client_id: 'portal-backend',
        tenant_id: 'demo',
        scope: 'bridge:sessions',
      },
      { expiresInSeconds: 3600 },
    );
    for (const list of [
      { id: 'e2e-revocation', type: 'OAuthStatusList' },
      {
        id: 'e2e-suspension',
        type: 'OAuthStatusList',
        statusPurpose: 'suspension',
        oauthStatusList: { bitsPerStatus: 2 },
      },
    ]) {
      const created = await api('POST', '/vc/status-lists', {
        statusList: { issuer: did, keyRef: ISSUER_KEY, proofFormat: 'jwt', length: 64, ...list },
      });
      expect(created.statusCode).toBe(200);
    }
  });

  afterAll(async () => {
    await bridgeApp?.close();
    await statusApp?.close();
    await t?.close();
    await tokens?.close();
  });

  const api = (method: 'POST' | 'PUT', url: string, payload?: object) =>
    statusApp.inject({
      method,
      url,
      headers: { authorization: `Bearer ${adminToken}` },
      ...(payload ? { payload } : {}),
    });

  /** An SD-JWT VC (RFC 9901, SD-JWT VC) for the wallet's key, signed by the issuer key through the key manager. */
  async function issueTo(wallet: TestWallet, status: { idx: number; uri: string }): Promise<string> {
    const holder = await wallet.nextBindingKey();
    const disclosures = Object.entries(PERSON).map(([name, value]) =>
      b64json([randomBytes(16).toString('base64url'), name, value]),
    );
    const now = Math.floor(Date.now() / 1000);
    const jwt = await signListJwt(t.platform.keys, ISSUER_KEY, did, 'dc+sd-jwt', {
      iss: did,
      iat: now - 5,
      exp: now + 3600,
      vct: DEMO_VCT,
      cnf: { jwk: holder.publicJwk as JWK },
      status: { status_list: status },
      _sd: disclosures.map((d) => createHash('sha256').update(d).digest('base64url')).sort(),
      _sd_alg: 'sha-256',
    });
    const credential = `${jwt}~${disclosures.map((d) => `${d}~`).join('')}`;
    await wallet.store(credential);
    return credential;
  }

  async function login(wallet: TestWallet, credential: string) {
    const created = await bridgeApp.inject({
      method: 'POST',
      url: '/auth/oid4vp/sessions',
      headers: { authorization: `Bearer ${portalToken}` },
      payload: { queryId: 'wallet-login' },
    });
    const { sessionId, requestUri } = created.json() as { sessionId: string; requestUri: string };
    const answer = await wallet.respond(requestUri, { useCredential: credential });
    const status = await bridgeApp.inject({
      method: 'GET',
      url: `/auth/oid4vp/sessions/${sessionId}/status`,
      headers: { authorization: `Bearer ${portalToken}` },
    });
    return { answer: answer.status, session: status.json() as Record<string, unknown> };
  }

  /** Past the list's ttl (1 s): the bridge's cached copy has expired and the next check fetches the list again. */
  const afterTtl = () => new Promise((resolve) => setTimeout(resolve, 1200));

  it.each([
    ['revoked', 'e2e-revocation', 'invalid', 'revoked'],
    ['suspended', 'e2e-suspension', 'suspended', 'suspended'],
  ])(
    'accepted before, refused with the status check once %s through the API',
    async (_name, listId, status, reason) => {
      const entry = await api('POST', `/vc/status-lists/${listId}/entries`);
      expect(entry.statusCode).toBe(201);
      const { status: reference } = entry.json() as { status: { status_list: { idx: number; uri: string } } };
      const wallet = await createTestWallet();
      const credential = await issueTo(wallet, reference.status_list);

      const before = await login(wallet, credential);
      expect(before.answer).toBe(200);
      expect(before.session).toMatchObject({ status: 'VERIFIED' });

      const changed = await api('PUT', `/vc/status-lists/${listId}/entries/${reference.status_list.idx}`, { status });
      expect(changed.statusCode).toBe(200);
      await afterTtl();

      const after = await login(wallet, credential);
      expect(after.answer).toBe(400);
      expect(after.session).toMatchObject({
        status: 'INTERACTION_STARTED',
        lastRejection: { check: 'status', reason: expect.stringContaining(reason) },
      });
    },
  );
});
