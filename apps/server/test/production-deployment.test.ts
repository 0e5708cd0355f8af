import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as client from 'openid-client';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { createPlatform } from '@tessera/platform';
import {
  HttpClient,
  LogCapture,
  createPostgresTestDatabase,
  freePort,
  runTsProcess,
  startRoundRobinProxy,
  type RoundRobinProxy,
} from '@tessera/platform/testing';
import { PostgresIdentityStore } from '@tessera/identity';
import { hashClientSecret } from '@tessera/token-service';
import { startDevIdentityProvider, type DevIdentityProvider } from '@tessera/dev-idp';
import { createTestIssuer, createTestWallet, DEMO_VCT, type TestIssuer, type TestWallet } from '@tessera/test-wallet';
import { createTestCa } from '../../../packages/bridge/test/support/x509.js';
import { loadServerConfig } from '../src/index.js';
import { allMigrations } from '../src/migrations.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';

const ROOT = join(import.meta.dirname, '../../..');
const EXAMPLE = join(ROOT, 'docs/examples/production.yaml');
const TENANT = 'uni';
const HOLDER = {
  service_id: 'S-2024-0815',
  eduperson_principal_name: 'grace@uni.example',
  email: 'grace@uni.example',
  given_name: 'Grace',
  family_name: 'Hopper',
};

/** The keys of docs/examples/production.yaml that this machine's deployment sets. */
interface ExampleConfig {
  tokenService: {
    issuer: string;
    upstream: { issuer: string };
    bridge: { url: string };
    clients: Record<string, Record<string, unknown>>;
  };
  bridge: {
    publicBaseUrl: string;
    walletLogin: { type: string; trustedIssuers: unknown[] };
    idv: { provider: { issuer: string }; portalUrl: string };
    requestSigning: { certificateChainPem: string };
  };
  portal: { publicUrl: string; tokenServiceUrl: string; bridgeUrl: string };
}

/** What the portal's sign-in page polls. */
interface StatusAnswer {
  state: string;
  next: string;
}

const attributeOf = (html: string, id: string, attribute: string): string | undefined => {
  const tag = new RegExp(`<[a-z]+[^>]*\\bid="${id}"[^>]*>`, 'i').exec(html)?.[0];
  return tag ? new RegExp(`\\b${attribute}="([^"]*)"`).exec(tag)?.[1]?.replaceAll('&amp;', '&') : undefined;
};

/**
 * The deployment of docs/deployment.md, started from docs/examples/production.yaml under NODE_ENV=production: the
 * bridge and the token service as two processes each behind round-robin load balancers, the portal as a fifth, all on
 * one PostgreSQL database and one Redis, sharing nothing else. The operator steps come first (the request-signing
 * certificate from `npm run request-signing -- csr` and a CA, client secrets from `npm run client-secret`); then a
 * relying party (openid-client) signs a person in with their wallet (the test wallet, which trusts only that CA) and
 * refreshes its tokens, with requests of the one flow landing on different processes.
 */
describe('production deployment: separate processes, PostgreSQL, Redis', () => {
  const secrets = {
    masterKey: randomBytes(32).toString('base64'),
    portal: randomBytes(24).toString('base64url'),
    library: randomBytes(24).toString('base64url'),
    federation: randomBytes(24).toString('base64url'),
    idv: randomBytes(24).toString('base64url'),
  };
  const dir = mkdtempSync(join(tmpdir(), 'tessera-deployment-'));
  const processes: ServerProcess[] = [];
  const proxies: { bridge?: RoundRobinProxy; token?: RoundRobinProxy } = {};
  let database: { url: string; drop(): Promise<void> };
  let idp: DevIdentityProvider;
  let issuer: TestIssuer;
  let wallet: TestWallet;
  let identityId: string;
  let portalUrl: string;
  let redirectUri: string;
  let caPem: string;

  beforeAll(async () => {
    database = await createPostgresTestDatabase();
    issuer = await createTestIssuer();
    proxies.bridge = await startRoundRobinProxy('localhost', 0);
    proxies.token = await startRoundRobinProxy('127.0.0.1', 0);
    portalUrl = `http://127.0.0.1:${await freePort()}`;
    redirectUri = `http://127.0.0.1:${await freePort()}/oidc/callback`;
    idp = await startDevIdentityProvider({
      port: 0,
      clients: [
        {
          clientId: 'tessera-federation',
          clientSecret: secrets.federation,
          redirectUris: [`${proxies.token.url}/federation/callback`],
        },
        {
          clientId: 'tessera-bridge-idv',
          clientSecret: secrets.idv,
          redirectUris: [`${proxies.bridge.url}/auth/oid4vp/idv/callback`],
        },
      ],
    });

    // The configuration: the example, with this machine's URLs and the hashes of this run's secrets.
    const config = parseYaml(readFileSync(EXAMPLE, 'utf8')) as ExampleConfig;
    const { tokenService, bridge, portal } = config;
    tokenService.issuer = proxies.token.url;
    tokenService.upstream.issuer = idp.issuer;
    tokenService.bridge.url = proxies.bridge.url;
    tokenService.clients['tessera-portal']!['client-secret'] = await hashClientSecret(secrets.portal);
    tokenService.clients['library']!['client-secret'] = await hashClientSecret(secrets.library);
    tokenService.clients['library']!['redirect-uris'] = [redirectUri];
    bridge.publicBaseUrl = proxies.bridge.url;
    bridge.walletLogin.type = DEMO_VCT;
    bridge.walletLogin.trustedIssuers = [issuer.issuerId];
    bridge.idv.provider.issuer = idp.issuer;
    bridge.idv.portalUrl = portalUrl;
    portal.publicUrl = portalUrl;
    portal.tokenServiceUrl = proxies.token.url;
    portal.bridgeUrl = proxies.bridge.url;
    const file = join(dir, 'tessera.yaml');
    const write = () => writeFileSync(file, stringifyYaml(config));
    write();
    const env: Record<string, string> = {
      NODE_ENV: 'production',
      TESSERA_CONFIG: file,
      DATABASE_URL: database.url,
      MASTER_KEY: secrets.masterKey,
      REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
      TESSERA_REDIS__KEY_PREFIX: `tessera-deployment-${randomBytes(4).toString('hex')}:`,
      TESSERA_PORTAL__CLIENT_SECRET: secrets.portal,
      TESSERA_TOKEN_SERVICE__UPSTREAM__CLIENT_SECRET: secrets.federation,
      TESSERA_BRIDGE__IDV__PROVIDER__CLIENT_SECRET: secrets.idv,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    };

    // Operator step: a certificate for the request-signing key, from a CA the wallet trusts.
    const csr = await runTsProcess('apps/server/src/main.ts', ['request-signing', 'csr'], { cwd: ROOT, env });
    expect(csr.stderr).toBe('');
    expect(csr.status).toBe(0);
    const ca = await createTestCa('CN=Example University verifier CA');
    bridge.requestSigning.certificateChainPem = `${await ca.certify(csr.stdout)}${ca.caPem}`;
    write();
    // The file loads as it is, under production, before any process starts.
    expect(loadServerConfig({ env: { ...env } }).tokenService.clients.library.scopes).toContain('service_id');

    const start = async (name: string, roles: string, ports: Record<string, number>) => {
      // Each process has its own management listener (issue 13 §3), where its readiness is asked.
      const management = await freePort();
      const portEnv = Object.fromEntries(
        Object.entries({ ...ports, MANAGEMENT: management }).map(([key, port]) => [
          `TESSERA_SERVER__PORTS__${key}`,
          String(port),
        ]),
      );
      const urls = Object.values(ports).map((port) => `http://127.0.0.1:${port}`);
      processes.push(
        await startServerProcess(name, { ...env, ...portEnv, ROLES: roles }, [`http://127.0.0.1:${management}`]),
      );
      return urls[0]!;
    };
    // The first process applies the migrations; the others find them applied (and would wait on the lock).
    const bridges = [
      await start('bridge-1', 'bridge', { BRIDGE: await freePort() }),
      await start('bridge-2', 'bridge', { BRIDGE: await freePort() }),
    ];
    proxies.bridge.setTargets(bridges);
    const tokens = [
      await start('token-1', 'token', { TOKEN_INTERNAL: await freePort(), TOKEN_EXTERNAL: await freePort() }),
      await start('token-2', 'token', { TOKEN_INTERNAL: await freePort(), TOKEN_EXTERNAL: await freePort() }),
    ];
    proxies.token.setTargets(tokens);
    await start('portal', 'portal', { PORTAL: Number(new URL(portalUrl).port) });

    // The person's institutional identity, as a federated login would have made it; their wallet is new.
    const seeding = await createPlatform(loadServerConfig({ env: { ...env } }), {
      migrations: allMigrations,
      logDestination: new LogCapture(),
    });
    try {
      const identities = new PostgresIdentityStore({
        keys: seeding.keys,
        clock: seeding.clock,
        serviceClaim: 'service_id',
      });
      identityId = await seeding.db.withTenant(TENANT, async (sql) => {
        const created = await identities.createIdentity(
          { tenantId: TENANT, sql },
          { claims: HOLDER, assurance: { acr: 'urn:tessera:federation', amr: ['federation'] } },
        );
        return created.internalIdentityId;
      });
    } finally {
      await seeding.close();
    }
    caPem = ca.caPem;
    wallet = await createTestWallet({ trustAnchors: [ca.caPem] });
    const key = await wallet.nextBindingKey();
    await wallet.store(
      await issuer.issueSdJwtVc({ holderPublicJwk: key.publicJwk, vct: DEMO_VCT, claims: HOLDER, withStatus: false }),
    );
  }, 300_000);

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await proxies.bridge?.close();
    await proxies.token?.close();
    await idp?.close();
    await issuer?.close();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  /** The library application as a relying party (openid-client), through the token service's balancer. */
  const relyingParty = () =>
    client.discovery(new URL(proxies.token!.url), 'library', secrets.library, undefined, {
      execute: [client.allowInsecureRequests],
    });

  /** An authorization request with PKCE (S256), state and nonce, to the library's redirect URI. */
  async function authorizationRequest(rp: client.Configuration, scope: string) {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(rp, {
      redirect_uri: redirectUri,
      scope,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url, verifier, state, nonce };
  }

  it('a relying party signs a person in with their wallet and refreshes, across the processes', async () => {
    const rp = await relyingParty();
    const {
      url: authorize,
      verifier,
      state,
      nonce,
    } = await authorizationRequest(rp, 'openid service_id offline_access');

    // flows.md step 1: the wallet button sends the browser to the portal with the authorization request.
    const browser = new HttpClient({ 'accept-language': 'en' });
    const page = await browser.request(`${portalUrl}/signin${authorize.search}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const requestUri = attributeOf(html, 'open-in-wallet', 'href')!;
    expect(requestUri).toMatch(/^openid4vp:\/\//);
    const pollUrl = attributeOf(html, 'status', 'data-poll-url')!;

    // The wallet checks the request's x5c chain against the CA only: the certificate of the operator step.
    const answered = await wallet.respond(requestUri);
    expect(answered.status).toBe(200);
    expect(answered.warnings ?? []).toEqual([]);

    const answer = (await (await browser.request(`${portalUrl}${pollUrl}`)).json()) as StatusAnswer;
    expect(answer.state).toBe('verified');
    const end = await browser.follow(answer.next, redirectUri);
    expect(end.url.startsWith(`${redirectUri}?`)).toBe(true);

    const tokens = await client.authorizationCodeGrant(rp, new URL(end.url), {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(identityId);
    expect(claims.acr).toBe('urn:tessera:oid4vp:vp');
    expect(claims.amr).toEqual(['vp']);
    expect(claims['service_id']).toBe(HOLDER.service_id);
    expect(tokens.refresh_token).toBeTruthy();

    const refreshed = await client.refreshTokenGrant(rp, tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    const userinfo = await client.fetchUserInfo(rp, refreshed.access_token, identityId);
    expect(userinfo['service_id']).toBe(HOLDER.service_id);

    // Both processes of each replicated role served part of the flow.
    expect(proxies.bridge!.counts.every((n) => n > 0)).toBe(true);
    expect(proxies.token!.counts.every((n) => n > 0)).toBe(true);
  });

  it('a person signs in with their institution, the upstream callback landing on either token process', async () => {
    const rp = await relyingParty();
    const user = idp.users.find((u) => u.username === 'alice')!;
    const identities = new Set<string>();
    // Nothing reaches the token service between the authorization request and the callback from the institution,
    // so the round-robin balancer sends them to different processes. Twice, to see the same person come back.
    for (let run = 0; run < 2; run++) {
      const { url: authorize, verifier, state, nonce } = await authorizationRequest(rp, 'openid service_id');
      const browser = new HttpClient({ 'accept-language': 'en' });
      const loginPage = await browser.follow(authorize.href, redirectUri);
      expect(new URL(loginPage.url).origin).toBe(new URL(idp.issuer).origin);
      const form = await loginPage.response!.text();
      const action = new URL(/<form[^>]*action="([^"]+)"/i.exec(form)![1]!.replaceAll('&amp;', '&'), loginPage.url);
      const back = await browser.follow(action.href, redirectUri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: user.username, password: user.password }).toString(),
      });
      expect(back.response, 'the login ends at the relying party').toBeNull();
      const tokens = await client.authorizationCodeGrant(rp, new URL(back.url), {
        pkceCodeVerifier: verifier,
        expectedState: state,
        expectedNonce: nonce,
      });
      const claims = tokens.claims()!;
      expect(claims.amr).toEqual(['federation']);
      expect(claims['service_id']).toBe(user.claims['service_id']);
      identities.add(claims.sub);
    }
    // The same person both times: the federation binding made by the first login is found by the second.
    expect(identities.size).toBe(1);
  });

  /** flows.md 1–4 through the portal: the sign-in page, the wallet's answer, the page's first poll. */
  async function walletAnswers(rp: client.Configuration, holder: TestWallet) {
    const request = await authorizationRequest(rp, 'openid service_id');
    const browser = new HttpClient({ 'accept-language': 'en' });
    const html = await (await browser.request(`${portalUrl}/signin${request.url.search}`)).text();
    expect((await holder.respond(attributeOf(html, 'open-in-wallet', 'href')!)).status).toBe(200);
    const pollUrl = attributeOf(html, 'status', 'data-poll-url')!;
    const status = (await (await browser.request(`${portalUrl}${pollUrl}`)).json()) as StatusAnswer;
    return { request, browser, status };
  }

  it('a new wallet: identity verification at the institution across the processes, then a direct sign-in', async () => {
    const rp = await relyingParty();
    const bob = idp.users.find((u) => u.username === 'bob')!;
    const holder = await createTestWallet({ trustAnchors: [caPem] });
    const key = await holder.nextBindingKey();
    await holder.store(
      await issuer.issueSdJwtVc({
        holderPublicJwk: key.publicJwk,
        vct: DEMO_VCT,
        claims: bob.claims,
        withStatus: false,
      }),
    );
    const exchange = async (request: { verifier: string; state: string; nonce: string }, callback: string) =>
      (
        await client.authorizationCodeGrant(rp, new URL(callback), {
          pkceCodeVerifier: request.verifier,
          expectedState: request.state,
          expectedNonce: request.nonce,
        })
      ).claims()!;

    // Nobody is known by this wallet or by bob's service id: the portal asks for identity verification (flows.md 5').
    const first = await walletAnswers(rp, holder);
    expect(first.status.state).toBe('idv');
    const verify = await first.browser.request(`${portalUrl}/signin/verify-identity`, {
      method: 'POST',
      headers: { origin: portalUrl, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(verify.status).toBe(303);
    const login = await first.browser.follow(verify.headers.get('location')!);
    const action = new URL(/<form method="post" action="([^"]+)"/.exec(await login.response!.text())![1]!, login.url);
    const portalCallback = await first.browser.follow(action.href, `${portalUrl}/wallet/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: bob.username, password: bob.password }).toString(),
    });
    expect(new URL(portalCallback.url).searchParams.get('status')).toBe('success');
    const finishing = await (await first.browser.request(portalCallback.url)).text();
    const poll = attributeOf(finishing, 'status', 'data-poll-url')!;
    const verified = (await (await first.browser.request(`${portalUrl}${poll}`)).json()) as StatusAnswer;
    expect(verified.state).toBe('verified');
    const end = await first.browser.follow(verified.next, redirectUri);
    const claims = await exchange(first.request, end.url);
    expect(claims.amr).toEqual(['vp']);
    expect(claims['service_id']).toBe(bob.claims['service_id']);

    // The wallet is now bound to bob's identity: the next sign-in goes straight to tokens, for the same person.
    const second = await walletAnswers(rp, holder);
    expect(second.status.state).toBe('verified');
    const again = await second.browser.follow(second.status.next, redirectUri);
    expect((await exchange(second.request, again.url)).sub).toBe(claims.sub);
  });

  it('every process stops cleanly on SIGTERM (exit code 0), the way an orchestrator stops it', async () => {
    const codes = await Promise.all(processes.map(async (p) => [p.name, await p.stop()] as const));
    expect(Object.fromEntries(codes)).toEqual(Object.fromEntries(processes.map((p) => [p.name, 0])));
  });
});
