import { randomBytes } from 'node:crypto';
import { createRoleApp, platformMigrations, type Platform, type RoleApp } from '@tessera/platform';
import { createTestPlatform, type TestDatabaseKind, type TestPlatform } from '@tessera/platform/testing';
import { identityMigrations, PostgresIdentityStore } from '@tessera/identity';
import { startDevIdentityProvider } from '@tessera/dev-idp';
import Value from 'typebox/value';
import {
  TokenServiceConfigSchema,
  createTokenService,
  registerTokenServiceRoutes,
  prepareTokenService,
  tokenServiceMigrations,
  type TokenServiceConfig,
  type TokenServiceContext,
  type WalletSessionRedeemer,
} from '../../src/index.js';

export const migrations = [...platformMigrations, ...identityMigrations, ...tokenServiceMigrations];
export const RP_REDIRECT = 'http://127.0.0.1:8400/callback';
export const RP_SECRET = 'demo-rp-secret';

export type DevIdp = Awaited<ReturnType<typeof startDevIdentityProvider>>;

export interface TokenServiceHarness {
  t: TestPlatform;
  platform: Platform;
  ctx: TokenServiceContext;
  app: RoleApp;
  issuer: string;
  idp: DevIdp | null;
  config: TokenServiceConfig;
  close(): Promise<void>;
}

/** The token service configuration of the tests: the demo client, a public client, a client_credentials client. */
export function testTokenServiceConfig(overrides: Partial<TokenServiceConfig> = {}): TokenServiceConfig {
  const base = Value.Default(TokenServiceConfigSchema, {
    clients: {
      'demo-rp': {
        'client-secret': `{plain}${RP_SECRET}`,
        'redirect-uris': [RP_REDIRECT],
        'grant-types': ['authorization_code', 'refresh_token'],
        scopes: ['openid', 'profile', 'email', 'service_id', 'offline_access'],
      },
      'other-rp': {
        'client-secret': '{plain}other-rp-secret',
        'redirect-uris': ['http://127.0.0.1:8401/callback'],
        'grant-types': ['authorization_code', 'refresh_token'],
        scopes: ['openid', 'profile', 'email', 'service_id', 'offline_access'],
      },
      'public-app': {
        'redirect-uris': ['http://127.0.0.1/callback'],
        'grant-types': ['authorization_code'],
        scopes: ['openid', 'profile'],
      },
      'native-app': {
        'client-secret': '{plain}native-app-secret',
        'application-type': 'native',
        'redirect-uris': ['http://127.0.0.1/callback'],
        'grant-types': ['authorization_code'],
        scopes: ['openid'],
      },
      'beta-rp': {
        'client-secret': '{plain}beta-rp-secret',
        'redirect-uris': ['http://127.0.0.1:8402/callback'],
        scopes: ['openid'],
        tenant: 'beta',
      },
      reconciler: {
        'client-secret': '{plain}reconciler-secret',
        'grant-types': ['client_credentials'],
        scopes: ['reconciliation:read', 'reconciliation:delete'],
        audience: 'tessera-reconciliation',
      },
    },
  }) as TokenServiceConfig;
  return { ...base, ...overrides };
}

export interface HarnessOptions {
  kind: TestDatabaseKind;
  /** Reuse this platform (restart tests pass their own). */
  testPlatform?: TestPlatform;
  upstream?: boolean;
  wallet?: WalletSessionRedeemer | null;
  config?: Partial<TokenServiceConfig>;
  idp?: DevIdp;
}

/** A token service on a real listening port, with the embedded institutional provider as its upstream. */
export async function startTokenService(options: HarnessOptions): Promise<TokenServiceHarness> {
  const t =
    options.testPlatform ??
    (await createTestPlatform(options.kind, { migrations, overrides: { rateLimit: { enabled: false } } }));
  const config = testTokenServiceConfig(options.config);
  const app = await createRoleApp(t.platform, { role: 'token-internal', title: 'Token service', family: 'oauth' });
  // The issuer is the listening URL, known once the app listens: the config object is read at request time.
  const identities = new PostgresIdentityStore({
    keys: t.platform.keys,
    clock: t.platform.clock,
    serviceClaim: 'service_id',
  });
  let idp: DevIdp | null = options.idp ?? null;
  const ctx = createTokenService(t.platform, config, { identities, wallet: options.wallet ?? null, upstream: null });
  await registerTokenServiceRoutes(app, ctx);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  config.issuer = url;
  if (options.upstream !== false) {
    idp ??= await startDevIdentityProvider({
      port: 0,
      clients: [
        {
          clientId: 'tessera-federation',
          clientSecret: 'federation-secret',
          redirectUris: [`${url}/federation/callback`],
        },
      ],
    });
    const { UpstreamOidcClient } = await import('@tessera/platform');
    (ctx as { upstream: unknown }).upstream = new UpstreamOidcClient({
      issuer: idp.issuer,
      clientId: 'tessera-federation',
      clientSecret: 'federation-secret',
      scopes: ['openid', 'profile', 'email', 'service_id'],
      timeoutSeconds: 3,
    });
  }
  await prepareTokenService(ctx);
  return {
    t,
    platform: t.platform,
    ctx,
    app,
    issuer: url,
    idp,
    config,
    async close() {
      await app.close();
      if (!options.idp) await idp?.close();
      if (!options.testPlatform) await t.close();
    },
  };
}

export const randomVerifier = () => randomBytes(48).toString('base64url');
