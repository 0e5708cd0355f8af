import { createRoleApp, PlatformConfigSchema, platformMigrations, type RoleApp } from '@tessera/platform';
import {
  createTestPlatform,
  startTestIssuer,
  type TestDatabaseKind,
  type TestIssuer,
  type TestPlatform,
} from '@tessera/platform/testing';
import {
  DesignsConfigSchema,
  designsMigrations,
  registerDesignsRoutes,
  type DesignsConfig,
  type DesignsDeps,
} from '../src/index.js';
import { Value } from 'typebox/value';

/** The test issuer acts in both test tenants (per-issuer trust, where the platform configures it). */
type SchemaNode = { properties?: Record<string, SchemaNode>; items?: SchemaNode };
const issuerSchema = (PlatformConfigSchema as unknown as SchemaNode).properties?.auth?.properties?.issuers?.items
  ?.properties;
const ISSUER_TRUST = issuerSchema && 'tenants' in issuerSchema ? { tenants: ['alpha', 'beta'] } : {};

/**
 * A designs role app on a fresh database of the given kind, with a token issuer the platform trusts and two
 * tenants (alpha, beta). Tokens: an administrator and a reader of each tenant.
 */
export interface DesignsBed {
  t: TestPlatform;
  app: RoleApp;
  issuer: TestIssuer;
  tokens: { alphaAdmin: string; alphaReader: string; betaAdmin: string };
  close(): Promise<void>;
}

export function designsConfig(over: Record<string, unknown> = {}): DesignsConfig {
  const config = Value.Default(DesignsConfigSchema, structuredClone(over));
  const errors = [...Value.Errors(DesignsConfigSchema, config)];
  if (errors.length > 0) throw new Error(`invalid designs configuration: ${JSON.stringify(errors[0])}`);
  return config as DesignsConfig;
}

export async function startDesignsBed(
  kind: TestDatabaseKind,
  options: { config?: DesignsConfig; deps?: Partial<DesignsDeps> } = {},
): Promise<DesignsBed> {
  const issuer = await startTestIssuer();
  const t = await createTestPlatform(kind, {
    migrations: [...platformMigrations, ...designsMigrations],
    overrides: {
      auth: {
        issuers: [{ issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: issuer.audience, ...ISSUER_TRUST }],
      },
      rateLimit: { enabled: false },
    },
  });
  await t.platform.tenants.ensure({ id: 'alpha', displayName: 'Alpha' });
  await t.platform.tenants.ensure({ id: 'beta', displayName: 'Beta' });
  await t.platform.tenants.load();
  const app = await createRoleApp(t.platform, { role: 'designs', title: 'Tessera designs', family: 'design' });
  registerDesignsRoutes(app, t.platform, { config: options.config ?? designsConfig(), ...options.deps });
  await app.ready();
  const tokens = {
    alphaAdmin: await issuer.sign(
      { sub: 'alice', tenant_id: 'alpha', roles: ['tenant-admin'] },
      { expiresInSeconds: 3600 },
    ),
    alphaReader: await issuer.sign({ sub: 'rita', tenant_id: 'alpha', roles: [] }, { expiresInSeconds: 3600 }),
    betaAdmin: await issuer.sign(
      { sub: 'bob', tenant_id: 'beta', roles: ['tenant-admin'] },
      { expiresInSeconds: 3600 },
    ),
  };
  return {
    t,
    app,
    issuer,
    tokens,
    async close() {
      await app.close();
      await t.close();
      await issuer.close();
    },
  };
}

/**
 * A second replica of the bed's designs app: its own platform (pool, change listener, caches) on the bed's
 * PostgreSQL database, as another process would run it.
 */
export async function startReplica(
  bed: DesignsBed,
  config: DesignsConfig,
): Promise<{ t: TestPlatform; app: RoleApp; close(): Promise<void> }> {
  const url = bed.t.databaseUrl;
  if (!url) throw new Error('a replica shares a PostgreSQL database');
  const t = await createTestPlatform('postgres', {
    migrations: [...platformMigrations, ...designsMigrations],
    overrides: {
      auth: {
        issuers: [
          { issuer: bed.issuer.issuer, jwksUri: bed.issuer.jwksUri, audience: bed.issuer.audience, ...ISSUER_TRUST },
        ],
      },
      rateLimit: { enabled: false },
    },
    configure: (c) => void (c.database.url = url),
  });
  await t.platform.tenants.load();
  const app = await createRoleApp(t.platform, { role: 'designs', title: 'replica', family: 'design' });
  registerDesignsRoutes(app, t.platform, { config });
  await app.ready();
  return {
    t,
    app,
    async close() {
      await app.close();
      await t.close();
    },
  };
}

/** A request through the app with a bearer token and a JSON body. */
export function call(
  bed: DesignsBed,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  token: string | null,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  return bed.app.inject({
    method,
    url,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    ...(body === undefined ? {} : { payload: body as object }),
  });
}

/** A credential design body (001 §2.1) with a German and an English display and two claims. */
export function credentialDesign(over: Record<string, unknown> = {}) {
  return {
    bindings: [{ key: 'VCT', value: 'https://credentials.example.com/identity_credential' }],
    alias: 'Identity credential',
    hostingMode: 'LOCAL',
    displays: [
      { locale: 'en', name: 'Identity Credential', description: 'Who you are', backgroundColor: '#12107C' },
      { locale: 'de', name: 'Identitätsnachweis' },
    ],
    claims: [
      {
        path: [{ kind: 'Property', name: 'given_name' }],
        labels: [
          { locale: 'en', label: 'Given name' },
          { locale: 'de', label: 'Vorname' },
        ],
        mandatory: true,
        order: 1,
        valueKind: 'STRING',
        widgetHint: 'TEXT',
      },
      {
        path: [{ kind: 'Property', name: 'birthdate' }],
        labels: [{ locale: 'en', label: 'Date of birth' }],
        mandatory: false,
        order: 2,
        valueKind: 'DATE',
        widgetHint: 'DATE',
      },
    ],
    ...over,
  };
}
