import { ManualClock } from '@tessera/platform';
import type { TestDatabaseKind } from '@tessera/platform/testing';
import { startDevIdentityProvider, type DemoUser, type DevIdentityProvider } from '@tessera/dev-idp';
import {
  createTestIssuer,
  createTestWallet,
  issueCredentialToWallet,
  type StatusListServer,
  type TestIssuer,
  type TestWallet,
} from '@tessera/test-wallet';
import { expect } from 'vitest';
import { IDV_CALLBACK_PATH } from '../../../src/index.js';
import { bearer, buildBridgeApp, startTestBed, type BridgeApp, type BridgeTestBed } from '../../support/bridge-app.js';
import { bridgeConfigFor, holderKeyOf, PERSON, sessionCalls, type SessionCalls } from '../../support/wallet-flow.js';
import { loginFormAction, FetchBrowser } from './fetch-browser.js';

/**
 * The IDV test bed: the bridge (listening, real identity store, ManualClock) on one engine, the test wallet's
 * issuer, and the real development OpenID provider as the institutional provider, whose client redirect URI is the
 * bridge's callback. The portal is a URL where nothing listens: the user browser stops before visiting it.
 */
export const IDV_CLIENT = { clientId: 'tessera-bridge-idv', clientSecret: 'bridge-idv-test-secret' };
export const PORTAL_URL = 'http://127.0.0.1:9/portal';
export const PORTAL_CALLBACK = `${PORTAL_URL}/wallet/callback`;
/** Presentation sessions live 120 s here, IDV attempts 600 s (so each expiry can be reached alone). */
export const SESSION_SECONDS = 120;
export const ATTEMPT_SECONDS = 600;

/** Institutional people of the provider: `withService` false gives a person without the service claim. */
export function institutionalUser(name: string, withService = true): DemoUser {
  return {
    username: name,
    password: `${name}-password`,
    sub: `inst-${name}`,
    claims: {
      ...(withService ? { service_id: `S-${name}` } : {}),
      eduperson_principal_name: `${name}@uni.example`,
      email: `${name}@uni.example`,
      email_verified: true,
      given_name: name,
      family_name: 'Example',
      name: `${name} Example`,
    },
  };
}

export interface IdvBed {
  bed: BridgeTestBed;
  b: BridgeApp;
  idp: DevIdentityProvider;
  issuer: TestIssuer;
  clock: ManualClock;
  calls: SessionCalls;
  idv: IdvCalls;
  user(name: string): DemoUser;
  close(): Promise<void>;
}

/**
 * `idv` overrides the bridge's IDV settings. By default the wallet's claims are not compared with the institution's
 * (`claimsMatch: off`): these beds exercise the protocol with one credential for many institutional people; the
 * comparison has its own tests (idv-claims-match.test.ts), which pass `{ claimsMatch: 'strict' }`.
 */
export async function startIdvBed(
  kind: TestDatabaseKind,
  users: DemoUser[],
  idv: Record<string, unknown> = { claimsMatch: 'off' },
): Promise<IdvBed> {
  const bed = await startTestBed(kind);
  const issuer = await createTestIssuer();
  const statusServer: StatusListServer = await issuer.statusListServer();
  const clock = new ManualClock(new Date());
  const b = await buildBridgeApp(bed.t.platform, {
    clock,
    listen: true,
    bridge: bridgeConfigFor(issuer, statusServer.url, {
      sessionTimeoutSeconds: SESSION_SECONDS,
      idv: {
        // The issuer is known once the provider listens (below); the bridge reads its IDV settings at each use.
        provider: { ...IDV_CLIENT, timeoutSeconds: 2, providerId: 'dev-idp' },
        portalUrl: PORTAL_URL,
        stateTtlSeconds: ATTEMPT_SECONDS,
        ...idv,
      },
    }),
  });
  const idp = await startDevIdentityProvider({
    port: 0,
    users,
    clients: [{ ...IDV_CLIENT, redirectUris: [`${b.url}${IDV_CALLBACK_PATH}`] }],
  });
  b.config.idv.provider.issuer = idp.issuer;
  return {
    bed,
    b,
    idp,
    issuer,
    clock,
    calls: sessionCalls(b, bed.portalToken, bed.tokenServiceToken),
    idv: idvCalls(b, bed.portalToken),
    user: (name) => {
      const user = users.find((u) => u.username === name);
      if (!user) throw new Error(`no institutional user ${name}`);
      return user;
    },
    async close() {
      await idp.close();
      await b.close();
      await issuer.close();
      await bed.close();
    },
  };
}

export interface Answer {
  statusCode: number;
  body: Record<string, unknown>;
}

export interface IdvCalls {
  initiate(sessionId: string, token?: string): Promise<Answer>;
  status(sessionId: string): Promise<Answer>;
  submit(sessionId: string, body: unknown): Promise<Answer>;
  /** The browser arriving at the callback URL the provider sent it to. */
  callback(
    url: URL | string,
  ): Promise<{ statusCode: number; location: string | undefined; body: string; headers: Record<string, unknown> }>;
}

export function idvCalls(b: BridgeApp, portalToken: string): IdvCalls {
  const json = (res: { statusCode: number; body: string }): Answer => ({
    statusCode: res.statusCode,
    body: res.body ? (JSON.parse(res.body) as Record<string, unknown>) : {},
  });
  return {
    async initiate(sessionId, token = portalToken) {
      return json(
        await b.app.inject({
          method: 'POST',
          url: `/auth/oid4vp/sessions/${sessionId}/idv/initiate`,
          headers: bearer(token),
        }),
      );
    },
    async status(sessionId) {
      return json(
        await b.app.inject({
          method: 'GET',
          url: `/auth/oid4vp/sessions/${sessionId}/idv/status`,
          headers: bearer(portalToken),
        }),
      );
    },
    async submit(sessionId, body) {
      return json(
        await b.app.inject({
          method: 'POST',
          url: `/auth/oid4vp/sessions/${sessionId}/idv/submit`,
          headers: bearer(portalToken),
          payload: body as Record<string, unknown>,
        }),
      );
    },
    async callback(url) {
      const u = new URL(url);
      const res = await b.app.inject({ method: 'GET', url: `${u.pathname}${u.search}` });
      return {
        statusCode: res.statusCode,
        location: res.headers.location as string | undefined,
        body: res.body,
        headers: res.headers,
      };
    },
  };
}

/** A wallet holding a credential of `claims`, whose holder no identity knows yet. */
export async function newWallet(bed: IdvBed, claims: Record<string, unknown> = PERSON): Promise<TestWallet> {
  const wallet = await createTestWallet();
  await issueCredentialToWallet(bed.issuer, wallet, { format: 'dc+sd-jwt', claims });
  return wallet;
}

/** flows.md 1–5': the wallet presents, the bridge knows no binding, complete answers 202: IDV is required. */
export async function unknownHolderSession(
  bed: IdvBed,
  wallet: TestWallet,
  body: Record<string, unknown> = {},
): Promise<string> {
  const { sessionId, requestUri } = await bed.calls.create({ queryId: 'wallet-login', ...body });
  expect((await wallet.respond(requestUri)).status).toBe(200);
  const complete = await bed.calls.complete(sessionId);
  expect(complete.statusCode).toBe(202);
  expect(complete.body).toMatchObject({ idvRequired: true, idvMethod: 'oidc' });
  return sessionId;
}

/** initiate, 200. */
export async function initiated(bed: IdvBed, sessionId: string) {
  const res = await bed.idv.initiate(sessionId);
  expect(res.statusCode).toBe(200);
  return res.body as { reconciliationSessionId: string; authorizationUrl: string; providerId: string };
}

/** The login page of the provider, reached from the authorizationUrl. */
export async function loginPage(browser: FetchBrowser, authorizationUrl: string, bridgeUrl: string) {
  const page = await browser.follow(authorizationUrl, `${bridgeUrl}${IDV_CALLBACK_PATH}`);
  expect(page.response?.status).toBe(200);
  const html = await page.response!.text();
  return { page, html, action: loginFormAction(html, page.url) };
}

/** The person signs in at the provider; answers the callback URL the provider sends the browser to (not visited). */
export async function signInAtProvider(bed: IdvBed, authorizationUrl: string, user: DemoUser): Promise<URL> {
  const browser = new FetchBrowser();
  const { action } = await loginPage(browser, authorizationUrl, bed.b.url!);
  const back = await browser.submit(
    action,
    { username: user.username, password: user.password },
    `${bed.b.url}${IDV_CALLBACK_PATH}`,
  );
  expect(back.response).toBeNull();
  return back.url;
}

export const portalRedirect = (
  sessionId: string,
  outcome: { status: 'success' } | { status: 'error'; reason: string },
) => {
  const url = new URL(PORTAL_CALLBACK);
  url.searchParams.set('session', sessionId);
  url.searchParams.set('status', outcome.status);
  if (outcome.status === 'error') url.searchParams.set('reason', outcome.reason);
  return url.href;
};

/** The identity reached through the institutional login (federation binding), or null. */
export function institutionalIdentity(bed: IdvBed, user: DemoUser) {
  return bed.bed.t.platform.db.withTenant('demo', (sql) =>
    bed.b.identities.findByFederationSubject({ tenantId: 'demo', sql }, bed.idp.issuer, user.sub),
  );
}

/** The identity the wallet's holder key is bound to, or null. */
export async function walletIdentity(bed: IdvBed, wallet: TestWallet) {
  const holderKey = await holderKeyOf(wallet.holderJwk);
  return bed.bed.t.platform.db.withTenant('demo', (sql) =>
    bed.b.identities.findByHolderKey({ tenantId: 'demo', sql }, holderKey),
  );
}
