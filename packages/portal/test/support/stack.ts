import type { AddressInfo } from 'node:net';
import Value from 'typebox/value';
import {
  createRoleApp,
  loadConfig,
  platformMigrations,
  withSymmetricKeysMigration,
  type Platform,
  type RoleApp,
} from '@tessera/platform';
import { createTestPlatform, type TestDatabaseKind, type TestPlatform } from '@tessera/platform/testing';
import { identityMigrations, PostgresIdentityStore } from '@tessera/identity';
import {
  BridgeConfigSchema,
  bridgeMigrations,
  IDV_CALLBACK_PATH,
  registerBridgeRoutes,
  type BridgeConfig,
} from '@tessera/bridge';
import {
  TokenServiceConfigSchema,
  createTokenService,
  prepareTokenService,
  registerTokenServiceRoutes,
  tokenServiceMigrations,
  type TokenServiceConfig,
} from '@tessera/token-service';
import { startDemoRelyingParty, type DemoRelyingParty } from '@tessera/demo-rp';
import { startDevIdentityProvider, type DevIdentityProvider } from '@tessera/dev-idp';
import { registerPortalRoutes, type PortalDeps } from '../../src/index.js';
import { freePort, OffsetClock } from './ports.js';
import { startRoundRobinProxy, type RoundRobinProxy } from '@tessera/platform/testing';
import { createPlatform, PlatformConfigSchema } from '@tessera/platform';
import { LogCapture } from '@tessera/platform/testing';

export const MIGRATIONS = withSymmetricKeysMigration([
  ...platformMigrations,
  ...identityMigrations,
  ...tokenServiceMigrations,
  ...bridgeMigrations,
]);

/** The portal's client at the token service and the audience every service token of the deployment carries. */
export const PORTAL_CLIENT = { clientId: 'tessera-portal', clientSecret: 'portal-secret' };
export const SERVICE_AUDIENCE = 'tessera-services';
/** The bridge's confidential client at the development identity provider (identity verification, 000 §4.2). */
export const BRIDGE_IDV_CLIENT = { clientId: 'tessera-bridge-idv', clientSecret: 'bridge-idv-secret' };
/** 000 §2.4 providerId of the development identity provider as the bridge's institutional provider. */
export const IDV_PROVIDER_ID = 'dev-idp';
/** 000 §8: with identity verification a presentation session lives 600 to 900 s; the stack takes the upper end. */
export const IDV_SESSION_TIMEOUT_SECONDS = 900;

export interface Stack {
  t: TestPlatform;
  platform: Platform;
  bridgeClock: OffsetClock;
  bridge: { app: RoleApp | null; url: string; config: BridgeConfig | null };
  tokenService: { app: RoleApp; url: string; config: TokenServiceConfig };
  /** With two replicas: the proxies, whose counts show that both instances served. */
  proxies: RoundRobinProxy[];
  portal: { app: RoleApp; url: string };
  rp: DemoRelyingParty;
  idp: DevIdentityProvider | null;
  identities: PostgresIdentityStore;
  close(): Promise<void>;
}

export interface StackOptions {
  kind: TestDatabaseKind;
  /** Bridge configuration overrides (the real bridge). */
  bridge?: Record<string, unknown>;
  /** A bridge already listening elsewhere (a stand-in); no real bridge is started then. */
  bridgeUrl?: string;
  /**
   * Starts the development identity provider as the token service's upstream (federated login) and, with the real
   * bridge, as the bridge's institutional provider for identity verification (000 §4.2): the bridge is its
   * confidential client with the redirect URI `${bridge public URL}/auth/oid4vp/idv/callback` (the proxy's URL with
   * two replicas), the callback sends the browser to the portal, and sessions live 900 s (000 §8).
   */
  idp?: boolean;
  /** Called with the token service URL before the portal starts (a stand-in that verifies its tokens). */
  onTokenService?: (url: string) => void;
  portal?: Partial<PortalDeps>;
  /** More clients of the token service (e.g. a second relying party). */
  extraClients?: Record<string, Record<string, unknown>>;
  /**
   * Two: the bridge and the token service run as two instances each, on two platforms sharing one PostgreSQL
   * database, behind round-robin proxies (issue 8 §4): the requests of one flow alternate between them.
   */
  replicas?: 1 | 2;
}

/**
 * One process with the roles of a development deployment, as the composition root runs them: one platform, the bridge
 * (listening on localhost, the development certificate's name), the token service (its issuer is its URL), the portal
 * and the demo relying party. The portal's service token comes from the token service's client_credentials grant,
 * and the platform trusts the token service as issuer for the bridge's and the token service's service endpoints.
 */
export async function startStack(options: StackOptions): Promise<Stack> {
  const t = await createTestPlatform(options.kind, {
    migrations: MIGRATIONS,
    overrides: { rateLimit: { enabled: true, requestsPerWindow: 100_000, windowSeconds: 60 } },
  });
  const platform = t.platform;
  const identities = new PostgresIdentityStore({
    keys: platform.keys,
    clock: platform.clock,
    serviceClaim: 'service_id',
  });
  const bridgeClock = new OffsetClock();
  const apps: RoleApp[] = [];
  const proxies: RoundRobinProxy[] = [];
  const replicated = options.replicas === 2;
  if (replicated && options.kind !== 'postgres') throw new Error('two replicas need PostgreSQL');
  // The second replica: its own platform (pool, caches, key cache) on the same database and master key.
  const second = replicated
    ? await createPlatform(
        loadConfig(PlatformConfigSchema, {
          env: {},
          overrides: {
            profile: 'test',
            database: { url: t.databaseUrl },
            keys: { masterKey: platform.config.keys.masterKey },
            tenancy: { seedDemoTenant: true },
            rateLimit: { enabled: true, requestsPerWindow: 100_000, windowSeconds: 60 },
          },
        }),
        { migrations: MIGRATIONS, logDestination: new LogCapture() },
      )
    : null;
  const secondIdentities = second
    ? new PostgresIdentityStore({ keys: second.keys, clock: second.clock, serviceClaim: 'service_id' })
    : null;
  let rp: DemoRelyingParty | undefined;
  let idp: DevIdentityProvider | null = null;
  try {
    let bridge: Stack['bridge'];
    if (options.bridgeUrl) {
      bridge = { app: null, url: options.bridgeUrl, config: null };
    } else {
      const overrides = {
        ...(options.idp ? { sessionTimeoutSeconds: IDV_SESSION_TIMEOUT_SECONDS } : {}),
        ...options.bridge,
      };
      const config = loadConfig(BridgeConfigSchema, { env: {}, overrides });
      const app = await createRoleApp(platform, { role: 'bridge', title: 'Tessera bridge', family: 'oauth' });
      apps.push(app);
      await registerBridgeRoutes(app, platform, { config, identities, clock: bridgeClock });
      await app.listen({ host: 'localhost', port: 0 });
      let url = `http://localhost:${(app.server.address() as AddressInfo).port}`;
      if (second && secondIdentities) {
        const other = await createRoleApp(second, { role: 'bridge', title: 'Tessera bridge', family: 'oauth' });
        apps.push(other);
        await registerBridgeRoutes(other, second, { config, identities: secondIdentities, clock: bridgeClock });
        await other.listen({ host: 'localhost', port: 0 });
        const proxy = await startRoundRobinProxy('localhost', 0);
        proxy.setTargets([url, `http://localhost:${(other.server.address() as AddressInfo).port}`]);
        proxies.push(proxy);
        url = proxy.url;
      }
      config.publicBaseUrl = url;
      bridge = { app, url, config };
    }

    const [tsPort, portalPort, rpPort] = [await freePort(), await freePort(), await freePort()];
    const tsUrl = `http://127.0.0.1:${tsPort}`;
    const portalUrl = `http://127.0.0.1:${portalPort}`;
    const rpRedirect = `http://127.0.0.1:${rpPort}/callback`;
    if (options.idp) {
      idp = await startDevIdentityProvider({
        port: 0,
        clients: [
          {
            clientId: 'tessera-federation',
            clientSecret: 'federation-secret',
            redirectUris: [`${tsUrl}/federation/callback`],
          },
          ...(bridge.config ? [{ ...BRIDGE_IDV_CLIENT, redirectUris: [`${bridge.url}${IDV_CALLBACK_PATH}`] }] : []),
        ],
      });
      if (bridge.config) {
        // The bridge reads its IDV settings at each use: the provider's issuer is known only now that it listens.
        bridge.config.idv.provider = {
          ...bridge.config.idv.provider,
          ...BRIDGE_IDV_CLIENT,
          issuer: idp.issuer,
          providerId: IDV_PROVIDER_ID,
        };
        bridge.config.idv.portalUrl = portalUrl;
      }
    }

    const tsConfig = Value.Default(TokenServiceConfigSchema, {
      clients: {
        'demo-rp': {
          'client-secret': '{plain}demo-rp-secret',
          'client-name': 'Demo Library',
          'redirect-uris': [rpRedirect],
          'grant-types': ['authorization_code', 'refresh_token'],
          scopes: ['openid', 'profile', 'email', 'service_id', 'offline_access'],
        },
        [PORTAL_CLIENT.clientId]: {
          'client-secret': `{plain}${PORTAL_CLIENT.clientSecret}`,
          'grant-types': ['client_credentials'],
          scopes: ['bridge:sessions', 'token-service:authorization-check'],
          audience: SERVICE_AUDIENCE,
        },
        ...options.extraClients,
      },
      bridge: { url: bridge.url, audience: SERVICE_AUDIENCE, waitSeconds: 3 },
      upstream: idp
        ? {
            issuer: idp.issuer,
            clientId: 'tessera-federation',
            clientSecret: 'federation-secret',
            scopes: ['openid', 'profile', 'email', 'service_id'],
          }
        : {},
      // The issuer is the listening URL, known up front from the reserved port.
      issuer: tsUrl,
    }) as TokenServiceConfig;
    const tsCtx = createTokenService(platform, tsConfig, { identities });
    const tsApp = await createRoleApp(platform, {
      role: 'token-internal',
      title: 'Tessera token service',
      family: 'oauth',
    });
    apps.push(tsApp);
    await registerTokenServiceRoutes(tsApp, tsCtx);
    if (second && secondIdentities) {
      // The issuer is the proxy's URL; both instances listen behind it.
      await tsApp.listen({ host: '127.0.0.1', port: 0 });
      const otherCtx = createTokenService(second, tsConfig, { identities: secondIdentities });
      const otherApp = await createRoleApp(second, {
        role: 'token-internal',
        title: 'Tessera token service',
        family: 'oauth',
      });
      apps.push(otherApp);
      await registerTokenServiceRoutes(otherApp, otherCtx);
      await otherApp.listen({ host: '127.0.0.1', port: 0 });
      const proxy = await startRoundRobinProxy('127.0.0.1', tsPort);
      proxy.setTargets([
        `http://127.0.0.1:${(tsApp.server.address() as AddressInfo).port}`,
        `http://127.0.0.1:${(otherApp.server.address() as AddressInfo).port}`,
      ]);
      proxies.push(proxy);
      await prepareTokenService(otherCtx);
      second.config.auth.issuers.push({
        issuer: tsUrl,
        jwksUri: `${tsUrl}/.well-known/jwks.json`,
        audience: SERVICE_AUDIENCE,
        algorithms: ['RS256'],
      });
    } else {
      await tsApp.listen({ host: '127.0.0.1', port: tsPort });
    }
    await prepareTokenService(tsCtx);
    platform.config.auth.issuers.push({
      issuer: tsUrl,
      jwksUri: `${tsUrl}/.well-known/jwks.json`,
      audience: SERVICE_AUDIENCE,
      algorithms: ['RS256'],
    });
    options.onTokenService?.(tsUrl);

    const portalApp = await createRoleApp(platform, { role: 'portal', title: 'Tessera portal', family: 'platform' });
    apps.push(portalApp);
    await registerPortalRoutes(portalApp, {
      tokenServiceUrl: tsUrl,
      tokenServicePublicUrl: tsUrl,
      bridgeUrl: bridge.url,
      bridgePublicUrl: bridge.url,
      portalPublicUrl: portalUrl,
      serviceCredentials: PORTAL_CLIENT,
      keys: platform.keys,
      ...options.portal,
    });
    await portalApp.listen({ host: '127.0.0.1', port: portalPort });

    rp = await startDemoRelyingParty({ port: rpPort, host: '127.0.0.1', tokenServiceUrl: tsUrl, portalUrl });
    const started = rp;
    return {
      t,
      platform,
      bridgeClock,
      bridge,
      tokenService: { app: tsApp, url: tsUrl, config: tsConfig },
      proxies,
      portal: { app: portalApp, url: portalUrl },
      rp: started,
      idp,
      identities,
      async close() {
        await started.close();
        for (const proxy of proxies) await proxy.close();
        for (const app of apps.reverse()) await app.close();
        await idp?.close();
        await second?.close();
        await t.close();
      },
    };
  } catch (error) {
    await rp?.close();
    for (const proxy of proxies) await proxy.close();
    for (const app of apps.reverse()) await app.close();
    await idp?.close();
    await second?.close();
    await t.close();
    throw error;
  }
}
