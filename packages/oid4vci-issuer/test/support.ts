import {
  createRoleApp,
  loadConfig,
  platformMigrations,
  UpstreamOidcClient,
  type Migration,
  type RoleApp,
} from '@tessera/platform';
import {
  createTestPlatform,
  startTestIssuer,
  type TestDatabaseKind,
  type TestIssuer,
  type TestPlatform,
} from '@tessera/platform/testing';
import { identityMigrations, PostgresIdentityStore } from '@tessera/identity';
import { bridgeMigrations } from '@tessera/bridge';
import { startDevIdentityProvider } from '@tessera/dev-idp';
import { createDesignDisplays, DesignsConfigSchema, designsMigrations, registerDesignsRoutes } from '@tessera/designs';
import Value from 'typebox/value';
import {
  createCredentialGrants,
  createTokenService,
  prepareTokenService,
  registerTokenServiceRoutes,
  signingKeyAlias,
  TokenServiceConfigSchema,
  tokenServiceMigrations,
  type TokenServiceConfig,
} from '@tessera/token-service';
import {
  createIssuanceSessions,
  issuanceMigrations,
  IssuanceConfigSchema,
  registerIssuanceRoutes,
  type IssuanceConfig,
  type IssuanceSessionsPort,
} from '@tessera/issuance';
import {
  createStatusEntryAllocator,
  registerStatusListsRoutes,
  statusListsMigrations,
  StatusListsConfigSchema,
} from '@tessera/status-lists';
import {
  credentialIssuerFor,
  ISSUER_STATUS_LIST_KEY_ALIAS,
  Oid4vciConfigSchema,
  oid4vciMigrations,
  registerOid4vciRoutes,
  type Oid4vciConfig,
} from '../src/index.js';

export const migrations: Migration[] = [
  ...platformMigrations,
  ...identityMigrations,
  ...tokenServiceMigrations,
  ...statusListsMigrations,
  ...designsMigrations,
  ...bridgeMigrations,
  ...issuanceMigrations,
  ...oid4vciMigrations,
];

export const TENANT = 'demo';
export const WALLET_CLIENT = 'dev-wallet';
export const WALLET_REDIRECT = 'http://127.0.0.1/wallet-callback';
export const PID = 'eu.tessera.pid';
export const VC = 'tessera.employee';
/** A VC-JWT on the stored pipeline `employment`, whose HR connector answers later (deferred issuance). */
export const DEFERRED_VC = 'tessera.employee.deferred';
export const EMPLOYMENT_PIPELINE = 'employment';
/** An SD-JWT VC of the type and claims the bridge's wallet-login query asks for. */
export const LOGIN = 'tessera.login';
export const LOGIN_VCT = 'urn:tessera:vct:wallet-login';

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
        [LOGIN]: {
          format: 'dc+sd-jwt',
          vct: LOGIN_VCT,
          claims: [
            { path: 'service_id' },
            { path: 'eduperson_principal_name' },
            { path: 'given_name', mandatory: false },
            { path: 'family_name', mandatory: false },
            { path: 'email', mandatory: false },
          ],
        },
        [DEFERRED_VC]: {
          format: 'jwt_vc_json',
          type: ['EmployeeCredential'],
          pipelineId: EMPLOYMENT_PIPELINE,
          claims: [{ path: 'name' }, { path: 'employer' }],
        },
      },
      ...over,
    },
  });
}

export interface Bed {
  t: TestPlatform;
  /** The token service (contracts A and B) on the same platform, listening; its issuer URL. */
  tokenService: string;
  tokenConfig: TokenServiceConfig;
  /** The status-lists role (publication of the lists the credentials point at), listening. */
  statusLists: string;
  /** The embedded institutional provider, when `upstream`. */
  idp: Awaited<ReturnType<typeof startDevIdentityProvider>> | null;
  sessions: IssuanceSessionsPort;
  issuanceConfig: IssuanceConfig;
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
  options: {
    config?: Record<string, unknown>;
    t?: TestPlatform;
    tokenService?: Partial<TokenServiceConfig>;
    /** The token service signs people in at an embedded institutional provider (authorization code flow). */
    upstream?: boolean;
    /** The pipeline's configuration (connectors); its callbackBaseUrl becomes the app's URL. */
    issuance?: Record<string, unknown>;
  } = {},
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
  // The identifier is the listening URL, known once listening: the configuration object is read per request.
  const config = testConfig('http://127.0.0.1:1', options.config);

  // The token service with DPoP and the OpenID4VCI grants, its aud = our credential issuer (contract C).
  const tokenConfig = Value.Default(TokenServiceConfigSchema, {
    // A public wallet client for the authorization code flow (PKCE S256).
    clients: {
      [WALLET_CLIENT]: {
        'redirect-uris': [WALLET_REDIRECT],
        'grant-types': ['authorization_code'],
        scopes: ['openid'],
      },
    },
    dpop: { enabled: true },
    oid4vci: { requireDpop: true },
    ...options.tokenService,
  }) as TokenServiceConfig;
  const tokenApp = await createRoleApp(t.platform, { role: 'token', title: 'Token service', family: 'oauth' });
  const identities = new PostgresIdentityStore({
    keys: t.platform.keys,
    clock: t.platform.clock,
    serviceClaim: 'service_id',
  });
  const tokenCtx = createTokenService(t.platform, tokenConfig, {
    identities,
    wallet: null,
    upstream: null,
    credentialIssuerFor: credentialIssuerFor(config),
  });
  await registerTokenServiceRoutes(tokenApp, tokenCtx);
  const tokenService = await tokenApp.listen({ host: '127.0.0.1', port: 0 });
  tokenConfig.issuer = tokenService;
  let idp: Awaited<ReturnType<typeof startDevIdentityProvider>> | null = null;
  if (options.upstream) {
    idp = await startDevIdentityProvider({
      port: 0,
      clients: [
        {
          clientId: 'tessera-federation',
          clientSecret: 'federation-secret',
          redirectUris: [`${tokenService}/federation/callback`],
        },
      ],
    });
    (tokenCtx as { upstream: unknown }).upstream = new UpstreamOidcClient({
      issuer: idp.issuer,
      clientId: 'tessera-federation',
      clientSecret: 'federation-secret',
      scopes: ['openid', 'profile', 'email', 'service_id'],
      timeoutSeconds: 3,
    });
  }
  await prepareTokenService(tokenCtx);

  const app = await createRoleApp(t.platform, { role: 'issuance', title: 'Tessera issuance', family: 'design' });
  const statusLists = loadConfig(StatusListsConfigSchema, {
    env: {},
    // A one-second ttl, so that a verifier's cached copy lets a revocation through within a test.
    overrides: { minLength: 16, defaultLength: 1024, ttlSeconds: 1, extraKeyAliases: [ISSUER_STATUS_LIST_KEY_ALIAS] },
  });
  const statusApp = await createRoleApp(t.platform, { role: 'status-lists', title: 'Status lists', family: 'oauth' });
  await registerStatusListsRoutes(statusApp, t.platform, { config: statusLists });
  const statusUrl = await statusApp.listen({ host: '127.0.0.1', port: 0 });
  statusLists.publicBaseUrl = statusUrl;
  // The pipeline backend beside the issuer, as on the issuance role (its callbacks, its pipeline API).
  const issuanceConfig = loadConfig(IssuanceConfigSchema, { env: {}, overrides: options.issuance ?? {} });
  await registerIssuanceRoutes(app, t.platform, { config: issuanceConfig });
  const sessions = createIssuanceSessions(t.platform, issuanceConfig);
  // The design registry's API on the same app (tests bind designs through it); the issuer reads it in process.
  const designsConfig = loadConfig(DesignsConfigSchema, { env: {}, overrides: {} });
  registerDesignsRoutes(app, t.platform, { config: designsConfig });
  await registerOid4vciRoutes(app, t.platform, {
    config,
    grants: createCredentialGrants(t.platform, { config: tokenConfig.oid4vci }),
    sessions,
    designs: createDesignDisplays(t.platform, designsConfig),
    statusEntries: createStatusEntryAllocator(t.platform, statusLists),
    authorizationServer: {
      issuerFor: () => tokenService,
      jwks: (tenantId) => t.platform.keys.publishedJwks(signingKeyAlias(tenantId)),
    },
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  config.tenants[TENANT]!.credentialIssuer = url;
  issuanceConfig.connectorCalls.callbackBaseUrl = url;
  const sign = (claims: Record<string, unknown>) => issuer.sign(claims, { expiresInSeconds: 3600 });
  return {
    t,
    tokenService,
    tokenConfig,
    statusLists: statusUrl,
    idp,
    sessions,
    issuanceConfig,
    app,
    url,
    config,
    issuer,
    tokens: {
      admin: await sign({ sub: 'alice', tenant_id: TENANT, roles: ['tenant-admin'] }),
      reader: await sign({ sub: 'rita', tenant_id: TENANT, roles: [] }),
    },
    async close() {
      await sessions.settled();
      await app.close();
      await tokenApp.close();
      await idp?.close();
      await statusApp.close();
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

/**
 * The stored pipeline `employment` of the deferred credential: the `hr` connector at OID4VCI_PRE_ISSUE (deferrable,
 * fed the connector field `employeeNo`), the credential's two claims deferrable. Created as the demo administrator.
 */
export async function createEmploymentPipeline(bed: Bed): Promise<{ status: number; body: Record<string, unknown> }> {
  return json(`${bed.url}/api/oid4vci/v1/backend/pipelines`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bed.tokens.admin}` },
    body: {
      pipelineId: EMPLOYMENT_PIPELINE,
      invocationBindings: [
        { connectorId: 'hr', phase: 'OID4VCI_PRE_ISSUE', mode: 'DEFERRABLE', inputConnectorFields: ['employeeNo'] },
      ],
      claimsBindings: [
        {
          credentialConfigurationId: DEFERRED_VC,
          deferrable: true,
          claims: [{ attributePath: 'name' }, { attributePath: 'employer' }],
        },
      ],
    },
  });
}
