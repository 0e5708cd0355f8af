import { createRoleApp, loadConfig, platformMigrations, type Migration, type RoleApp } from '@tessera/platform';
import {
  createTestPlatform,
  startTestIssuer,
  type TestDatabaseKind,
  type TestIssuer,
  type TestPlatform,
} from '@tessera/platform/testing';
import { importJWK, jwtVerify, decodeProtectedHeader, type JWK } from 'jose';
import {
  registerStatusListsRoutes,
  StatusListsConfigSchema,
  statusListsMigrations,
  type StatusListsConfig,
} from '../src/index.js';

export const migrations: Migration[] = [...platformMigrations, ...statusListsMigrations];

export const BASE_URL = 'http://status.test.example';
export const TENANT = 'demo';
/** The host name mapped to the tenant `other`, whose public base URL is OTHER_BASE_URL. */
export const OTHER_HOST = 'other.test.example';
export const OTHER_BASE_URL = 'http://other.test.example';

/**
 * The configuration of the tests: lists may be as short as 8 entries (roll-over and the bad-input table), and
 * every read of a publication looks for changes (publicationRefreshSeconds 0), so that a test sees a change on its
 * next read; publication-refresh.test.ts covers the default, debounced publication.
 */
export function testConfig(over: Record<string, unknown> = {}): StatusListsConfig {
  return loadConfig(StatusListsConfigSchema, {
    env: {},
    overrides: {
      publicBaseUrl: BASE_URL,
      tenantPublicBaseUrls: { other: OTHER_BASE_URL },
      minLength: 8,
      publicationRefreshSeconds: 0,
      ...over,
    },
  });
}

export interface Bed {
  t: TestPlatform;
  app: RoleApp;
  issuer: TestIssuer;
  config: StatusListsConfig;
  tokens: { admin: string; reader: string; service: string; otherAdmin: string };
  close(): Promise<void>;
}

/**
 * A status-lists role app on a fresh database of the given kind, with a token issuer the platform trusts. The demo
 * tenant is the default; `other` is a second tenant. Tokens: a demo administrator, a demo reader, the issuance
 * service (client token with the service scope, no role) and an administrator of `other`.
 */
export async function startBed(kind: TestDatabaseKind, config: StatusListsConfig = testConfig()): Promise<Bed> {
  const issuer = await startTestIssuer();
  const t = await createTestPlatform(kind, {
    migrations,
    overrides: {
      auth: {
        issuers: [{ issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: issuer.audience, tenants: 'any' }],
      },
      rateLimit: { enabled: false },
      tenancy: { seedDemoTenant: true, hostMappings: { [OTHER_HOST]: 'other' } },
    },
  });
  await t.platform.tenants.ensure({ id: 'other', displayName: 'Other' });
  await t.platform.tenants.load();
  const app = await createRoleApp(t.platform, { role: 'status-lists', title: 'Tessera status-lists', family: 'oauth' });
  await registerStatusListsRoutes(app, t.platform, { config });
  await app.ready();
  const sign = (claims: Record<string, unknown>) => issuer.sign(claims, { expiresInSeconds: 3600 });
  const tokens = {
    admin: await sign({ sub: 'alice', tenant_id: TENANT, roles: ['tenant-admin'] }),
    reader: await sign({ sub: 'rita', tenant_id: TENANT, roles: [] }),
    service: await sign({ sub: 'issuance', azp: 'issuance', tenant_id: TENANT, scope: config.serviceScope }),
    otherAdmin: await sign({ sub: 'olga', tenant_id: 'other', roles: ['tenant-admin'] }),
  };
  return {
    t,
    app,
    issuer,
    config,
    tokens,
    async close() {
      await app.close();
      await t.close();
      await issuer.close();
    },
  };
}

export function call(
  app: RoleApp,
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  token: string | null,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  return app.inject({
    method,
    url,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    ...(body === undefined ? {} : { payload: body as object }),
  });
}

/** A create request (001 §2.4) for the demo tenant, issuer = the role's public base URL. */
export function listBody(id: string, over: Record<string, unknown> = {}) {
  return { statusList: { type: 'OAuthStatusList', id, issuer: BASE_URL, proofFormat: 'jwt', length: 64, ...over } };
}

export async function createList(bed: Bed, id: string, over: Record<string, unknown> = {}): Promise<string> {
  const response = await call(bed.app, 'POST', '/vc/status-lists', bed.tokens.admin, listBody(id, over));
  if (response.statusCode !== 200) throw new Error(`create ${id}: ${response.statusCode} ${response.body}`);
  return response.json() as string;
}

export async function allocate(bed: Bed, listId: string, token = bed.tokens.admin) {
  const response = await call(bed.app, 'POST', `/vc/status-lists/${listId}/entries`, token);
  if (response.statusCode !== 201) throw new Error(`allocate ${listId}: ${response.statusCode} ${response.body}`);
  return response.json() as {
    listId: string;
    index: number;
    uri: string;
    status?: { status_list: { idx: number; uri: string } };
    credentialStatus?: Record<string, string>;
  };
}

export async function setStatus(bed: Bed, listId: string, index: number, status: string | number) {
  const response = await call(bed.app, 'PUT', `/vc/status-lists/${listId}/entries/${index}`, bed.tokens.admin, {
    status,
  });
  if (response.statusCode !== 200) throw new Error(`set ${listId}/${index}: ${response.statusCode} ${response.body}`);
  return response.json() as { status: string; value: number; previous: { status: string; value: number } };
}

/** The published list (public GET, no token). */
export async function published(bed: Bed, listId: string): Promise<string> {
  const response = await call(bed.app, 'GET', `/status-lists/${listId}`, null);
  if (response.statusCode !== 200) throw new Error(`publish ${listId}: ${response.statusCode} ${response.body}`);
  return response.body;
}

/** Verifies a list JWT against the issuer's key set as a verifier finds it (/.well-known/jwt-vc-issuer). */
export async function verifyWithIssuerMetadata(bed: Bed, token: string) {
  const metadata = (await call(bed.app, 'GET', '/.well-known/jwt-vc-issuer', null)).json() as {
    issuer: string;
    jwks: { keys: JWK[] };
  };
  const { kid } = decodeProtectedHeader(token);
  const jwk = metadata.jwks.keys.find((k) => k.kid === kid);
  if (!jwk) throw new Error(`no key ${String(kid)} in the issuer metadata`);
  const verified = await jwtVerify(token, await importJWK(jwk, 'ES256'));
  return { metadata, ...verified };
}

/** Rows of a table in the tenant (for "nothing half-written"). */
export async function countRows(bed: Bed, table: string): Promise<number> {
  return bed.t.platform.db.withTenant(TENANT, async (sql) => {
    const rows = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
    return Number(rows.rows[0]!.n);
  });
}
