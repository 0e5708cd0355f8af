import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';
import {
  createPlatform,
  createRoleApp,
  loadConfig,
  PlatformConfigSchema,
  UpstreamOidcClient,
  type Platform,
  type RoleApp,
} from '@tessera/platform';
import { createPostgresTestDatabase, LogCapture } from '@tessera/platform/testing';
import { PostgresIdentityStore } from '@tessera/identity';
import { startDevIdentityProvider } from '@tessera/dev-idp';
import {
  createTokenService,
  prepareTokenService,
  registerTokenServiceRoutes,
  type TokenServiceConfig,
} from '../src/index.js';
import { migrations, RP_REDIRECT, RP_SECRET, testTokenServiceConfig, type DevIdp } from './support/harness.js';
import { UserAgent } from './support/user-agent.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Issue 3: "A restart between authorization and code exchange does not break the flow." Codes, grants and login
 * transactions live in the database; the signing key lives in the key store under the same master key.
 */
describe('a restart between authorization and code exchange (postgres)', () => {
  let db: { url: string; drop(): Promise<void> };
  let idp: DevIdp;
  let port: number;
  const masterKey = randomBytes(32).toString('base64');
  let running: { platform: Platform; app: RoleApp } | null = null;

  async function start(): Promise<string> {
    const config = loadConfig(PlatformConfigSchema, {
      env: {},
      overrides: { profile: 'test', database: { url: db.url }, keys: { masterKey }, tenancy: { seedDemoTenant: true } },
    });
    const platform = await createPlatform(config, { migrations, logDestination: new LogCapture() });
    const issuer = `http://127.0.0.1:${port}`;
    const tsConfig: TokenServiceConfig = { ...testTokenServiceConfig(), issuer };
    const ctx = createTokenService(platform, tsConfig, {
      identities: new PostgresIdentityStore({ keys: platform.keys, clock: platform.clock, serviceClaim: 'service_id' }),
      wallet: null,
      upstream: new UpstreamOidcClient({
        issuer: idp.issuer,
        clientId: 'tessera-federation',
        clientSecret: 'federation-secret',
        scopes: ['openid', 'email', 'service_id'],
        timeoutSeconds: 3,
      }),
    });
    const app = await createRoleApp(platform, { role: 'token-internal', title: 'Token service', family: 'oauth' });
    await registerTokenServiceRoutes(app, ctx);
    await app.listen({ host: '127.0.0.1', port });
    await prepareTokenService(ctx);
    running = { platform, app };
    return issuer;
  }

  async function stop(): Promise<void> {
    await running?.app.close();
    await running?.platform.close();
    running = null;
  }

  beforeAll(async () => {
    db = await createPostgresTestDatabase();
    port = await freePort();
    idp = await startDevIdentityProvider({
      port: 0,
      clients: [
        {
          clientId: 'tessera-federation',
          clientSecret: 'federation-secret',
          redirectUris: [`http://127.0.0.1:${port}/federation/callback`],
        },
      ],
    });
  });
  afterAll(async () => {
    await stop();
    await idp?.close();
    await db?.drop();
  });

  it('exchanges, after a restart, a code issued before it; and a login started before it completes after it', async () => {
    const issuer = await start();
    const rp = await client.discovery(new URL(issuer), 'demo-rp', RP_SECRET, undefined, {
      execute: [client.allowInsecureRequests],
    });
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(rp, {
      redirect_uri: RP_REDIRECT,
      scope: 'openid email offline_access',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'st-restart',
      nonce: 'n-restart',
    });
    const ua = new UserAgent();
    const page = await ua.follow(url.href, RP_REDIRECT);
    // Restart while the user is at the institutional provider's login page.
    await stop();
    await start();
    const user = idp.users[0]!;
    const back = await ua.login(page as { url: string; response: Response }, user.username, user.password, RP_REDIRECT);
    expect(back.response).toBeNull();
    // And again between the authorization response and the code exchange.
    await stop();
    await start();
    const tokens = await client.authorizationCodeGrant(rp, new URL(back.url), {
      pkceCodeVerifier: verifier,
      expectedState: 'st-restart',
      expectedNonce: 'n-restart',
    });
    expect(tokens.claims()).toMatchObject({ iss: issuer, aud: 'demo-rp', email: user.claims.email });
    expect(tokens.refresh_token).toBeTruthy();
    const refreshed = await client.refreshTokenGrant(rp, tokens.refresh_token!);
    expect(refreshed.access_token).toBeTruthy();
  });
});
