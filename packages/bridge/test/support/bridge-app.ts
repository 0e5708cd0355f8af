import type { AddressInfo } from 'node:net';
import {
  createRoleApp,
  loadConfig,
  platformMigrations,
  withSymmetricKeysMigration,
  type Clock,
  type Platform,
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
import {
  BridgeConfigSchema,
  bridgeMigrations,
  registerBridgeRoutes,
  type BridgeConfig,
  type BridgeDeps,
  type BridgeHandle,
} from '../../src/index.js';

/**
 * A bridge role app as the composition root builds it (createTestPlatform + createRoleApp + registerBridgeRoutes),
 * with the real identity store, bearer tokens from a test issuer, and (for wallets) a listening server whose URL
 * becomes the bridge's publicBaseUrl on `localhost` (the development certificate's DNS name).
 */
export const BRIDGE_MIGRATIONS = withSymmetricKeysMigration([
  ...platformMigrations,
  ...identityMigrations,
  ...bridgeMigrations,
]);

export interface BridgeApp {
  app: RoleApp;
  platform: Platform;
  config: BridgeConfig;
  handle: BridgeHandle;
  identities: PostgresIdentityStore;
  /** http://localhost:<port> when listening. */
  url: string | null;
  close(): Promise<void>;
}

export async function buildBridgeApp(
  platform: Platform,
  options: {
    bridge?: Record<string, unknown>;
    clock?: Clock;
    listen?: boolean;
    identities?: PostgresIdentityStore;
    /** The token service's part of an erasure (absent: a bridge without the token service). */
    revokeSubjectGrants?: BridgeDeps['revokeSubjectGrants'];
  } = {},
): Promise<BridgeApp> {
  const config = loadConfig(BridgeConfigSchema, { env: {}, overrides: options.bridge ?? {} });
  const clock = options.clock ?? platform.clock;
  const identities =
    options.identities ??
    new PostgresIdentityStore({ keys: platform.keys, clock, serviceClaim: platform.config.deployment.serviceClaim });
  const app = await createRoleApp(platform, { role: 'bridge', title: 'Tessera bridge', family: 'oauth' });
  const handle = await registerBridgeRoutes(app, platform, {
    config,
    identities,
    clock,
    revokeSubjectGrants: options.revokeSubjectGrants,
  });
  let url: string | null = null;
  if (options.listen) {
    await app.listen({ host: 'localhost', port: 0 });
    url = `http://localhost:${(app.server.address() as AddressInfo).port}`;
    config.publicBaseUrl = url;
  } else {
    await app.ready();
  }
  return { app, platform, config, handle, identities, url, close: () => app.close() };
}

export interface BridgeTestBed {
  t: TestPlatform;
  issuer: TestIssuer;
  /** A portal backend token (scope bridge:sessions, tenant demo). */
  portalToken: string;
  /** A token service token (scope bridge:redeem, tenant demo). */
  tokenServiceToken: string;
  close(): Promise<void>;
}

export async function startTestBed(
  kind: TestDatabaseKind,
  overrides: Record<string, unknown> = {},
): Promise<BridgeTestBed> {
  const issuer = await startTestIssuer();
  const t = await createTestPlatform(kind, {
    migrations: BRIDGE_MIGRATIONS,
    overrides: {
      // The portal backend's issuer: the deployment's own token service, trusted for every tenant (issue 13 §1).
      auth: {
        issuers: [{ issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: issuer.audience, tenants: 'any' }],
      },
      rateLimit: { enabled: true, requestsPerWindow: 100_000, windowSeconds: 60 },
      ...overrides,
    },
  });
  const portalToken = await issuer.sign(
    {
      sub: 'portal-backend',
      azp: 'portal-backend',
      client_id: 'portal-backend',
      tenant_id: 'demo',
      scope: 'bridge:sessions',
    },
    { expiresInSeconds: 3600 },
  );
  const tokenServiceToken = await issuer.sign(
    { sub: 'token-service', azp: 'token-service', tenant_id: 'demo', scope: 'bridge:redeem' },
    { expiresInSeconds: 3600 },
  );
  return {
    t,
    issuer,
    portalToken,
    tokenServiceToken,
    async close() {
      await t.close();
      await issuer.close();
    },
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
