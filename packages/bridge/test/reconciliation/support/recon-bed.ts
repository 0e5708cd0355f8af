import { randomBytes } from 'node:crypto';
import Value from 'typebox/value';
import { platformMigrations, withSymmetricKeysMigration, type Clock, type Platform } from '@tessera/platform';
import { createTestPlatform, type TestDatabaseKind, type TestPlatform } from '@tessera/platform/testing';
import { exportSharedHmacKey, identityMigrations } from '@tessera/identity';
import { ClientConfigSchema, revokeSubjectGrants, tokenServiceMigrations } from '@tessera/token-service';
import { createDpopProof, type DpopKeySigner } from '@tessera/pkce-dpop';
import {
  startTokenService,
  testTokenServiceConfig,
  type TokenServiceHarness,
} from '../../../../token-service/test/support/harness.js';
import { bridgeMigrations, computeIdentifierHash, RECONCILIATION_BASE_PATH } from '../../../src/index.js';
import { buildBridgeApp, type BridgeApp } from '../../support/bridge-app.js';
import { startSecondProvider, type SecondProvider } from './second-provider.js';

/**
 * The test bed of the external reconciliation API: one platform on a fresh database of the given engine with
 * every context's migrations (the erasure revokes grants through the token service's revocation), our token service on it
 * (client_credentials tokens, and federated logins through the development provider when `upstream`), a second,
 * independent authorization server (oidc-provider), both trusted by the platform, and the bridge app with its
 * reconciliation clients.
 */
export const AUDIENCE = 'tessera-reconciliation';
export const READ = 'reconciliation:read';
export const WRITE = 'reconciliation:write';
export const DELETE = 'reconciliation:delete';
export const DPOP_BASE_URL = 'https://bridge.example.test';

export const MIGRATIONS = withSymmetricKeysMigration([
  ...platformMigrations,
  ...identityMigrations,
  ...tokenServiceMigrations,
  ...bridgeMigrations,
]);

/** Clients of our token service (client_credentials). */
const OUR_CLIENTS: Record<string, Record<string, unknown>> = {
  'recon-full': { scopes: [READ, WRITE, DELETE] },
  // Holds write in its token, but its projection grants read only.
  'recon-narrow': { scopes: [READ, WRITE] },
  'recon-reader': { scopes: [READ] },
  // A valid token of a client the API does not list.
  'recon-unlisted': { scopes: [READ] },
  // A token minted for another API of the deployment.
  'recon-other-audience': { scopes: [READ], audience: 'tessera-services' },
  // Two seconds, not one: exp is the issuing second plus the lifetime, so a one-second token can already be expired
  // when the check right after issuance lands in the next second (the platform here tolerates no skew).
  'recon-short': { scopes: [READ], 'token-settings': { 'access-token-time-to-live': 'PT2S' } },
  // The portal backend of the wallet flows (session API scope; the platform trusts this issuer for AUDIENCE).
  'portal-backend': { scopes: ['bridge:sessions'] },
};

/** Projections (000 §2.7) of the API. */
export const RECONCILIATION_CLIENTS = {
  'recon-full': {
    scopes: [READ, WRITE, DELETE],
    'projected-claims': ['service_id', 'email'],
    'auxiliary-categories': ['crm', 'notes'],
  },
  'recon-narrow': { scopes: [READ], 'projected-claims': ['email'], 'auxiliary-categories': ['notes'] },
  'recon-reader': { scopes: [READ], 'projected-claims': ['service_id'], 'auxiliary-categories': ['crm'] },
  'recon-other-audience': { scopes: [READ], 'projected-claims': [], 'auxiliary-categories': [] },
  'recon-short': { scopes: [READ], 'projected-claims': [], 'auxiliary-categories': [] },
  'partner-system': {
    scopes: [READ, WRITE, DELETE],
    'projected-claims': ['eduperson_principal_name'],
    'auxiliary-categories': ['partner', 'crm'],
  },
  'beta-partner': { scopes: [READ], 'projected-claims': ['email'], 'auxiliary-categories': [] },
};

export interface ReconBedOptions {
  kind: TestDatabaseKind;
  /** Platform configuration overrides (rate limit, Redis, ...). */
  platform?: Record<string, unknown>;
  /** `bridge.reconciliation` overrides. */
  reconciliation?: Record<string, unknown>;
  /** Other `bridge` configuration. */
  bridge?: Record<string, unknown>;
  /** Federated login at our token service through the development provider. */
  upstream?: boolean;
  /** The bridge listens (wallet flows). */
  listen?: boolean;
  clock?: Clock;
}

export interface ApiResponse {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string | string[] | number | undefined>;
  raw: string;
}

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Below the base path, e.g. `/lookup`. */
  path: string;
  token?: string;
  scheme?: 'Bearer' | 'DPoP';
  /** A JSON value, or raw bytes/text sent as is (then give the content type in `headers`). */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface ReconBed {
  t: TestPlatform;
  platform: Platform;
  ours: TokenServiceHarness;
  second: SecondProvider;
  b: BridgeApp;
  /** A client_credentials token of our token service. */
  ourToken(clientId: string, scope?: string): Promise<string>;
  call(request: ApiRequest): Promise<ApiResponse>;
  /** A DPoP proof for a request to the API (htu under DPOP_BASE_URL). */
  proof(signer: DpopKeySigner, method: string, path: string, accessToken: string): Promise<string>;
  createIdentity(claims: Record<string, unknown>, holderKey?: string): Promise<string>;
  /** The tenant's shared lookup key (identity.keys.export-shared-hmac-key). */
  sharedKey(): Promise<string>;
  hash(identifier: string): Promise<string>;
  close(): Promise<void>;
}

export async function startReconBed(options: ReconBedOptions): Promise<ReconBed> {
  const t = await createTestPlatform(options.kind, {
    migrations: MIGRATIONS,
    overrides: {
      rateLimit: { enabled: true, requestsPerWindow: 1_000_000, windowSeconds: 60 },
      // No tolerance: an expired token is expired (the expiry test waits for it).
      auth: { clockToleranceSeconds: 0 },
      ...options.platform,
    },
  });
  const clients = Object.fromEntries(
    Object.entries(OUR_CLIENTS).map(([id, c]) => [
      id,
      Value.Default(ClientConfigSchema, {
        'client-secret': `{plain}${id}-secret`,
        'grant-types': ['client_credentials'],
        audience: AUDIENCE,
        ...c,
      }),
    ]),
  );
  const ours = await startTokenService({
    kind: options.kind,
    testPlatform: t,
    upstream: options.upstream ?? false,
    config: { clients: { ...testTokenServiceConfig().clients, ...clients } as never },
  });
  const second = await startSecondProvider({
    // `recon-full` here is an impostor: that client id belongs to our token service (issue 13 §1).
    clientIds: ['partner-system', 'partner-unlisted', 'beta-partner', 'recon-full'],
    audience: AUDIENCE,
    scopes: [READ, WRITE, DELETE],
    // A partner serving two tenants names the tenant in each token (issue 13 §1).
    tenantOf: { 'partner-system': 'demo', 'partner-unlisted': 'demo', 'recon-full': 'demo', 'beta-partner': 'beta' },
  });
  const algorithms = ['RS256', 'ES256'];
  t.platform.config.auth.issuers.push(
    { issuer: ours.issuer, jwksUri: `${ours.issuer}/.well-known/jwks.json`, audience: AUDIENCE, algorithms },
    { issuer: second.issuer, jwksUri: second.jwksUri, audience: AUDIENCE, algorithms, tenants: ['demo', 'beta'] },
  );
  // Each external-API client is its id from its issuer, in its tenant (issue 13 §1).
  const secondClients = new Set(['partner-system', 'partner-unlisted', 'beta-partner']);
  const boundClients = Object.fromEntries(
    Object.entries(RECONCILIATION_CLIENTS).map(([id, client]) => [
      id,
      {
        ...client,
        issuer: secondClients.has(id) ? second.issuer : ours.issuer,
        ...(id === 'beta-partner' ? { tenant: 'beta' } : {}),
      },
    ]),
  );
  await t.platform.tenants.ensure({ id: 'beta', displayName: 'Beta', hostNames: ['beta.localhost'] });
  await t.platform.tenants.load();
  const b = await buildBridgeApp(t.platform, {
    ...(options.clock ? { clock: options.clock } : {}),
    listen: options.listen ?? false,
    // As the composition root wires it: the token service revokes an erased identity's grants (issue 13 §9).
    revokeSubjectGrants: revokeSubjectGrants({ clock: options.clock ?? t.platform.clock }),
    bridge: {
      ...options.bridge,
      reconciliation: {
        clients: boundClients,
        dpop: { baseUrl: DPOP_BASE_URL },
        ...options.reconciliation,
      },
    },
  });
  let key: string | undefined;
  const bed: ReconBed = {
    t,
    platform: t.platform,
    ours,
    second,
    b,
    async ourToken(clientId, scope) {
      const response = await fetch(`${ours.issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${clientId}:${clientId}-secret`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) }).toString(),
      });
      const body = (await response.json()) as { access_token?: string };
      if (response.status !== 200 || !body.access_token)
        throw new Error(`our token endpoint answered ${response.status}`);
      return body.access_token;
    },
    async call(request) {
      const raw = typeof request.body === 'string' || Buffer.isBuffer(request.body);
      const headers: Record<string, string> = {
        ...(request.body !== undefined && !raw ? { 'content-type': 'application/json' } : {}),
        ...request.headers,
      };
      if (request.token !== undefined) headers.authorization = `${request.scheme ?? 'Bearer'} ${request.token}`;
      const payload =
        request.body === undefined ? undefined : raw ? (request.body as string | Buffer) : JSON.stringify(request.body);
      const res = await b.app.inject({
        method: request.method,
        url: `${RECONCILIATION_BASE_PATH}${request.path}`,
        headers,
        ...(payload === undefined ? {} : { payload }),
      });
      let body: Record<string, unknown> = {};
      try {
        body = res.body ? (JSON.parse(res.body) as Record<string, unknown>) : {};
      } catch {
        body = {};
      }
      return { status: res.statusCode, body, headers: res.headers, raw: res.body };
    },
    async proof(signer, method, path, accessToken) {
      const issuer = { method: 'KEY_ALIAS' as const, identifier: 'reconciliation-client', signer };
      const url = `${DPOP_BASE_URL}${RECONCILIATION_BASE_PATH}${path}`;
      return (await createDpopProof({ issuer, httpMethod: method, httpUrl: url, accessToken })).dpopProof;
    },
    async createIdentity(claims, holderKey) {
      return t.platform.db.withTenant('demo', async (sql) => {
        const unit = { tenantId: 'demo', sql };
        const identity = await b.identities.createIdentity(unit, {
          claims,
          assurance: { acr: 'urn:test:loa:substantial', amr: ['federation'] },
        });
        if (holderKey) await b.identities.bindWallet(unit, identity.internalIdentityId, holderKey);
        return identity.internalIdentityId;
      });
    },
    async sharedKey() {
      key ??= (await exportSharedHmacKey({ db: t.platform.db, keys: t.platform.keys, clock: t.platform.clock }, 'demo'))
        .key;
      return key;
    },
    async hash(identifier) {
      return computeIdentifierHash(await bed.sharedKey(), identifier);
    },
    async close() {
      await b.close();
      await second.close();
      await ours.close();
      await t.close();
    },
  };
  return bed;
}

/** A unique identifier value per test (identities of one bed share a database). */
export const unique = (prefix: string) => `${prefix}-${randomBytes(6).toString('hex')}`;
