import { createRoleApp, loadConfig, platformMigrations, type Migration, type RoleApp } from '@tessera/platform';
import {
  createTestPlatform,
  startTestIssuer,
  type TestDatabaseKind,
  type TestIssuer,
  type TestPlatform,
} from '@tessera/platform/testing';
import { identityMigrations } from '@tessera/identity';
import { tokenServiceMigrations, createCredentialGrants, signingKeyAlias } from '@tessera/token-service';
import { createIssuanceSessions, issuanceMigrations, IssuanceConfigSchema } from '@tessera/issuance';
import { createStatusEntryAllocator, statusListsMigrations, StatusListsConfigSchema } from '@tessera/status-lists';
import { Oid4vciConfigSchema, oid4vciMigrations, registerOid4vciRoutes, type Oid4vciConfig } from '../src/index.js';

export const migrations: Migration[] = [
  ...platformMigrations,
  ...identityMigrations,
  ...tokenServiceMigrations,
  ...statusListsMigrations,
  ...issuanceMigrations,
  ...oid4vciMigrations,
];

export const TENANT = 'demo';
export const STATUS_BASE_URL = 'http://127.0.0.1:1/status';
export const PID = 'eu.tessera.pid';
export const VC = 'tessera.employee';

/** The issuer's configuration in the tests: an SD-JWT VC with five claims and a VC-JWT, both on inline pipelines. */
export function testConfig(credentialIssuer: string, over: Record<string, unknown> = {}): Oid4vciConfig {
  return loadConfig(Oid4vciConfigSchema, {
    env: {},
    overrides: {
      tenants: { [TENANT]: { credentialIssuer, display: [{ name: 'Test issuer', locale: 'en' }] } },
      credentialConfigurations: {
        [PID]: {
          format: 'dc+sd-jwt',
          vct: 'urn:eu.tessera:pid:1',
          scope: 'pid',
          claims: [
            { path: 'given_name', display: [{ name: 'Given name', locale: 'en' }] },
            { path: 'family_name' },
            { path: 'birthdate' },
            { path: 'address.locality' },
            { path: 'nationality', mandatory: false },
          ],
          display: [{ name: 'Personal ID', locale: 'en' }],
        },
        [VC]: {
          format: 'jwt_vc_json',
          type: ['EmployeeCredential'],
          claims: [{ path: 'name' }, { path: 'employer' }],
        },
      },
      ...over,
    },
  });
}

export interface Bed {
  t: TestPlatform;
  app: RoleApp;
  url: string;
  config: Oid4vciConfig;
  issuer: TestIssuer;
  tokens: { admin: string; reader: string };
  close(): Promise<void>;
}

/**
 * The issuance role app with the OpenID4VCI issuer on a fresh database, listening on an ephemeral port; its
 * credential issuer identifier is that URL. Tokens of a test issuer the platform trusts: a demo administrator and
 * a demo reader. `tokenService` is the issuer of the access tokens the credential endpoint accepts.
 */
export async function startBed(
  kind: TestDatabaseKind,
  options: { tokenServiceIssuer?: () => string; config?: Record<string, unknown>; t?: TestPlatform } = {},
): Promise<Bed> {
  const issuer = await startTestIssuer();
  const t =
    options.t ??
    (await createTestPlatform(kind, {
      migrations,
      overrides: {
        auth: {
          issuers: [{ issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: issuer.audience, tenants: 'any' }],
        },
        rateLimit: { enabled: false },
      },
    }));
  const app = await createRoleApp(t.platform, { role: 'issuance', title: 'Tessera issuance', family: 'design' });
  // The identifier is the listening URL, known once listening: the configuration object is read per request.
  const config = testConfig('http://127.0.0.1:1', options.config);
  const statusLists = loadConfig(StatusListsConfigSchema, {
    env: {},
    overrides: { publicBaseUrl: STATUS_BASE_URL, minLength: 16, defaultLength: 1024 },
  });
  await registerOid4vciRoutes(app, t.platform, {
    config,
    grants: createCredentialGrants(t.platform),
    sessions: createIssuanceSessions(t.platform, loadConfig(IssuanceConfigSchema, { env: {}, overrides: {} })),
    statusEntries: createStatusEntryAllocator(t.platform, statusLists),
    authorizationServer: {
      issuerFor: () => options.tokenServiceIssuer?.() ?? 'http://127.0.0.1:2',
      jwks: (tenantId) => t.platform.keys.publishedJwks(signingKeyAlias(tenantId)),
    },
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  config.tenants[TENANT]!.credentialIssuer = url;
  const sign = (claims: Record<string, unknown>) => issuer.sign(claims, { expiresInSeconds: 3600 });
  return {
    t,
    app,
    url,
    config,
    issuer,
    tokens: {
      admin: await sign({ sub: 'alice', tenant_id: TENANT, roles: ['tenant-admin'] }),
      reader: await sign({ sub: 'rita', tenant_id: TENANT, roles: [] }),
    },
    async close() {
      await app.close();
      if (!options.t) await t.close();
      await issuer.close();
    },
  };
}

export async function json(
  url: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
