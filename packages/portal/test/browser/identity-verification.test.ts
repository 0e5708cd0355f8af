import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { IDV_CALLBACK_PATH } from '@tessera/bridge';
import type { TenantUnit } from '@tessera/identity';
import { createTestIssuer, type TestIssuer, type TestWallet } from '@tessera/test-wallet';
import { createWalletOf, walletLoginSettings } from '../support/holder.js';
import { BRIDGE_IDV_CLIENT, IDV_SESSION_TIMEOUT_SECONDS, startStack, type Stack } from '../support/stack.js';
import { launchChromium, newBrowserTest, type BrowserTest } from './support/browser.js';
import { expectPng, portalTransaction, tabTo, waitForState } from './support/expectations.js';

/**
 * A wallet-login credential of the development provider's demo person alice: her identifying claims (the bridge
 * compares them with the institution's), but names of its own, which the tokens do not show (issue 14 §1: the
 * identity's claims, the institution's, win).
 */
const ALICE_CREDENTIAL_CLAIMS = {
  service_id: 'S-1001',
  eduperson_principal_name: 'alice@uni.example',
  email: 'ali@wallet.example',
  given_name: 'Ali',
  family_name: 'Doe',
};

/** The rows of one of the demo relying party's claim tables (`<th>` name, `<td>` value as shown). */
async function claimsTable(page: Page, id: string): Promise<Record<string, string>> {
  const rows = page.locator(`#${id} tbody tr`);
  const claims: Record<string, string> = {};
  for (let i = 0; i < (await rows.count()); i++) {
    const row = rows.nth(i);
    claims[(await row.locator('th').textContent())!.trim()] = (await row.locator('td').textContent())!.trim();
  }
  return claims;
}

/**
 * Identity verification in the browser (flows.md 5'–7', 000 §4.2), with the REAL bridge and the REAL development
 * identity provider as the institution, for one and for two replicas of bridge and token service (each request of
 * the flow may land on either instance; the provider knows the bridge by the proxy's URL). The wallet's holder is
 * not bound and identity resolution's auto-match is off, so `complete` answers 202: the portal explains the step,
 * the browser signs in at the provider's own login form, comes back through the bridge's callback to the portal's
 * /wallet/callback, and the sign-in ends at the relying party. Every step leaves a screenshot under
 * test-artifacts/screenshots/<test>/.
 */
describe.each([1, 2] as const)(
  'identity verification in the browser, real bridge and development identity provider (%i replica(s))',
  (replicas) => {
    let stack: Stack;
    let issuer: TestIssuer;
    let browser: Browser;

    beforeAll(async () => {
      issuer = await createTestIssuer();
      stack = await startStack({
        kind: 'postgres',
        replicas,
        bridge: walletLoginSettings(issuer),
        idp: true,
        portal: { statusPollSeconds: 0.5 },
      });
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
      await stack?.close();
      await issuer?.close();
    });

    const idpOrigin = () => new URL(stack.idp!.issuer).origin;
    const demo = <T>(run: (unit: TenantUnit) => Promise<T>) =>
      stack.platform.db.withTenant('demo', (sql) => run({ tenantId: 'demo', sql }));
    /** The institutional identity of a person of the development provider, found by its federation binding. */
    const institutionalIdentity = (username: string) =>
      demo((unit) => stack.identities.findByFederationSubject(unit, stack.idp!.issuer, `dev-idp-${username}`));

    /**
     * From the relying party's wallet button to the portal's QR page; the wallet answers the request it shows. The
     * bridge verifies the presentation, `complete` answers 202 and the page goes on to the explanation.
     */
    async function walletPresents(b: BrowserTest, wallet: TestWallet, shots = false): Promise<void> {
      await b.page.goto(stack.rp.url);
      await b.page.click('#wallet-login');
      await b.page.waitForURL((url) => url.origin === stack.portal.url && url.pathname === '/signin');
      await waitForState(b.page, 'waiting');
      if (shots) await expectPng(await b.shot('sign-in page waiting for the wallet'));
      await wallet.respond((await b.page.getAttribute('#open-in-wallet', 'href'))!);
      await b.page.waitForURL(`${stack.portal.url}/signin/verify-identity`);
    }

    /** The explanation's button, by keyboard: the portal initiates IDV at the bridge and sends the browser on. */
    async function continueToInstitution(b: BrowserTest): Promise<URLSearchParams> {
      const authorize = b.page.waitForRequest((r) => r.url().startsWith(`${stack.idp!.issuer}/authorize?`));
      await tabTo(b.page, 'verify-identity');
      await b.page.keyboard.press('Enter');
      const query = new URL((await authorize).url()).searchParams;
      await b.page.waitForURL((url) => url.origin === idpOrigin() && url.pathname.startsWith('/interaction/'));
      expect(await b.page.locator('input[type=password]').count()).toBe(1);
      return query;
    }

    /** The provider's login form, as a person fills it in (demo account `<name>` / `<name>-password`). */
    async function signInAtInstitution(b: BrowserTest, username: string): Promise<void> {
      await b.page.fill('#username', username);
      await b.page.fill('#password', `${username}-password`);
      await b.page.getByRole('button', { name: 'Sign in' }).click();
    }

    it('unknown holder: explanation, institution login, bridge callback, tokens; next time the wallet alone', async () => {
      const b = await newBrowserTest(browser, `identity verification success (${replicas} replica)`);
      // Every page the browser is sent to, redirects included: the chain must pass the bridge's callback.
      const navigations: string[] = [];
      b.page.on('request', (r) => {
        if (r.isNavigationRequest()) navigations.push(r.url());
      });
      try {
        const wallet = await createWalletOf(issuer, ALICE_CREDENTIAL_CLAIMS);
        expect(await institutionalIdentity('alice')).toBeNull();
        await walletPresents(b, wallet, true);
        const tx = await portalTransaction(b.context);

        // flows.md 5': the page says why and what happens, with one button.
        expect(await b.page.getAttribute('html', 'lang')).toBe('en');
        expect(await b.page.textContent('h1')).toBe('Confirm your identity');
        expect(await b.page.textContent('main')).toContain('your wallet is not linked to an account here yet');
        expect(await b.page.locator('ol.steps li').count()).toBe(3);
        expect(await b.page.textContent('#verify-identity')).toBe('Continue to your institution');
        await expectPng(await b.shot('verify identity page'));

        // 000 §4.2: the bridge's authorization request at the provider: its own client, its callback, PKCE S256.
        const query = await continueToInstitution(b);
        expect(query.get('client_id')).toBe(BRIDGE_IDV_CLIENT.clientId);
        expect(query.get('redirect_uri')).toBe(`${stack.bridge.url}${IDV_CALLBACK_PATH}`);
        expect(query.get('response_type')).toBe('code');
        expect(query.get('code_challenge_method')).toBe('S256');
        expect(query.get('scope')?.split(' ')).toContain('openid');
        expect(query.get('state')).toBeTruthy();
        expect(query.get('nonce')).toBeTruthy();
        await expectPng(await b.shot('institution login page'));

        // The finishing page follows the IDV status; its first poll is held until the page has been seen (the real
        // bridge has completed the attempt by the time the browser arrives, so nothing else would keep it up).
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let statusPolls = 0;
        await b.page.route(
          (url) => url.pathname === '/api/signin/verification-status',
          async (route) => {
            statusPolls += 1;
            await held;
            await route.continue();
          },
        );
        await signInAtInstitution(b, 'alice');
        await b.page.waitForURL((url) => url.origin === stack.portal.url && url.pathname === '/wallet/callback');
        const back = new URL(b.page.url());
        expect(Object.fromEntries(back.searchParams)).toEqual({ session: tx.sessionId, status: 'success' });
        expect(await b.page.textContent('h1')).toBe('Finishing your sign-in');
        expect(await b.page.textContent('#status-text')).toBe('Finishing your identity verification…');
        await expectPng(await b.shot('finishing'));
        release();

        // 7': the IDV status is COMPLETED, complete answers 200 (a new user), the browser goes via /authorize to the RP.
        await b.page.waitForURL((url) => url.href.startsWith(stack.rp.redirectUri));
        await b.page.unrouteAll();
        expect(statusPolls).toBeGreaterThan(0);
        expect(await b.page.textContent('h1')).toBe('You are signed in');
        const identity = await institutionalIdentity('alice');
        expect(identity).not.toBeNull();
        expect(identity!.bindings).toMatchObject({ walletBound: true, federationBound: true });
        const claims = await claimsTable(b.page, 'id-token-claims');
        expect(claims).toMatchObject({
          sub: identity!.internalIdentityId,
          acr: 'urn:tessera:oid4vp:vp',
          amr: '["vp"]',
          service_id: 'S-1001',
        });
        expect(await b.page.textContent('#access-token-claims')).toContain('demo-rp');
        await expectPng(await b.shot('relying party signed in'));

        const callbackPrefix = `${stack.bridge.url}${IDV_CALLBACK_PATH}?`;
        const callbackAt = navigations.findIndex((u) => u.startsWith(callbackPrefix));
        expect(callbackAt).toBeGreaterThan(0);
        expect(navigations[callbackAt + 1]).toBe(back.href);
        expect(new URL(navigations[callbackAt + 2]!).pathname).toBe('/authorize');
        // With two replicas, both instances of each service served part of the flow.
        for (const proxy of stack.proxies) expect(proxy.counts.every((n) => n > 0)).toBe(true);

        // The same wallet again: its holder is bound now (USE_EXISTING_BINDING), so no explanation, no institution.
        const before = navigations.length;
        await b.page.goto(stack.rp.url);
        await b.page.click('#wallet-login');
        await waitForState(b.page, 'waiting');
        await expectPng(await b.shot('second sign-in waiting for the wallet'));
        await wallet.respond((await b.page.getAttribute('#open-in-wallet', 'href'))!);
        await b.page.waitForURL((url) => url.href.startsWith(stack.rp.redirectUri));
        const again = navigations.slice(before).map((u) => new URL(u));
        expect(again.some((u) => u.pathname === '/signin/verify-identity' || u.origin === idpOrigin())).toBe(false);
        expect(await b.page.textContent('h1')).toBe('You are signed in');
        const viaWallet = await claimsTable(b.page, 'id-token-claims');
        expect(viaWallet).toMatchObject({
          sub: identity!.internalIdentityId,
          acr: 'urn:tessera:oid4vp:vp',
          amr: '["vp"]',
        });
        await expectPng(await b.shot('relying party signed in with the wallet alone'));

        // One person on both paths (issue 14 §1): the federated login of alice gives the same sub the same claims,
        // the institution's, as the wallet logins did.
        await b.page.goto(stack.rp.url);
        await b.page.click('#institution-login');
        await b.page.waitForURL((url) => url.href.startsWith(stack.rp.redirectUri) || url.origin === idpOrigin());
        if (new URL(b.page.url()).origin === idpOrigin()) {
          await signInAtInstitution(b, 'alice');
          await b.page.waitForURL((url) => url.href.startsWith(stack.rp.redirectUri));
        }
        const viaFederation = await claimsTable(b.page, 'id-token-claims');
        await expectPng(await b.shot('relying party signed in through the institution'));
        expect(viaFederation.sub).toBe(identity!.internalIdentityId);
        expect(JSON.parse(viaFederation.amr!)).toEqual(['federation']);
        for (const name of ['service_id', 'eduperson_principal_name', 'email', 'given_name', 'family_name']) {
          expect(viaWallet[name]).toBe(viaFederation[name]);
          expect(claims[name]).toBe(viaFederation[name]);
        }
        expect(viaFederation).toMatchObject({
          family_name: 'Archer',
          given_name: 'Alice',
          email: 'alice.archer@uni.example',
        });
      } finally {
        await b.close();
      }
    });

    it('Cancel at the institution: the portal names the reason in plain words and offers to start again', async () => {
      const b = await newBrowserTest(browser, `identity verification cancelled (${replicas} replica)`);
      try {
        await walletPresents(b, await createWalletOf(issuer));
        const tx = await portalTransaction(b.context);
        await expectPng(await b.shot('verify identity page'));
        await continueToInstitution(b);
        await expectPng(await b.shot('institution login page'));

        // The provider answers error=access_denied to the bridge's callback, which sends the reason to the portal.
        await b.page.getByRole('button', { name: 'Cancel' }).click();
        await b.page.waitForURL((url) => url.origin === stack.portal.url && url.pathname === '/wallet/callback');
        expect(Object.fromEntries(new URL(b.page.url()).searchParams)).toEqual({
          session: tx.sessionId,
          status: 'error',
          reason: 'access_denied',
        });
        expect(await b.page.textContent('h1')).toBe('Identity verification did not succeed');
        expect(await b.page.textContent('main')).toContain('The sign-in at your institution was cancelled or refused.');
        expect(await b.page.textContent('.reference')).toBe('Reference for support: access_denied');
        const restart = new URL((await b.page.getAttribute('#start-again', 'href'))!, stack.portal.url);
        expect(restart.pathname).toBe('/signin');
        expect(Object.fromEntries(restart.searchParams)).toEqual(tx.params);
        await expectPng(await b.shot('cancelled'));

        // Start again: a new session for the relying party's original request, a new QR.
        await tabTo(b.page, 'start-again');
        await b.page.keyboard.press('Enter');
        await waitForState(b.page, 'waiting');
        const second = await portalTransaction(b.context);
        expect(second.sessionId).not.toBe(tx.sessionId);
        expect(second.params).toEqual(tx.params);
        await expectPng(await b.shot('started again'));
      } finally {
        await b.close();
      }
    });

    it('the session expires while the person is at the institution: the portal says it took too long', async () => {
      const b = await newBrowserTest(browser, `identity verification session expired (${replicas} replica)`);
      try {
        const timeout = IDV_SESSION_TIMEOUT_SECONDS;
        expect(stack.bridge.config!.sessionTimeoutSeconds).toBe(timeout);
        const attemptSeconds = stack.bridge.config!.idv.stateTtlSeconds;
        await walletPresents(b, await createWalletOf(issuer));
        const tx = await portalTransaction(b.context);
        await expectPng(await b.shot('verify identity page'));
        // The bridge's clock: the attempt starts late in the session's life, and the answer comes after the session
        // has expired (000 §2.1) but while the attempt's state is still valid, so the callback reaches the portal.
        stack.bridgeClock.offsetSeconds = timeout - attemptSeconds + 100;
        await continueToInstitution(b);
        await expectPng(await b.shot('institution login page'));
        stack.bridgeClock.offsetSeconds = timeout + 50;
        await signInAtInstitution(b, 'bob');
        await b.page.waitForURL((url) => url.origin === stack.portal.url && url.pathname === '/wallet/callback');
        expect(Object.fromEntries(new URL(b.page.url()).searchParams)).toEqual({
          session: tx.sessionId,
          status: 'error',
          reason: 'session_expired',
        });
        expect(await b.page.textContent('h1')).toBe('Identity verification did not succeed');
        expect(await b.page.textContent('main')).toContain('The sign-in took too long and has expired.');
        expect(await b.page.textContent('.reference')).toBe('Reference for support: session_expired');
        expect(
          Object.fromEntries(
            new URL((await b.page.getAttribute('#start-again', 'href'))!, stack.portal.url).searchParams,
          ),
        ).toEqual(tx.params);
        // Nothing was bound: bob's login came too late.
        expect(await institutionalIdentity('bob')).toBeNull();
        await expectPng(await b.shot('session expired'));
      } finally {
        stack.bridgeClock.offsetSeconds = 0;
        await b.close();
      }
    });

    it('the session expires on the explanation page: the button says so instead of leaving for the institution', async () => {
      const b = await newBrowserTest(browser, `identity verification expired before start (${replicas} replica)`);
      try {
        await walletPresents(b, await createWalletOf(issuer));
        const tx = await portalTransaction(b.context);
        await expectPng(await b.shot('verify identity page'));
        stack.bridgeClock.offsetSeconds = IDV_SESSION_TIMEOUT_SECONDS + 100;
        await tabTo(b.page, 'verify-identity');
        await b.page.keyboard.press('Enter');
        await b.page.waitForURL(`${stack.portal.url}/signin/verify-identity`, { waitUntil: 'load' });
        await b.page.locator('#start-again').waitFor();
        expect(await b.page.textContent('h1')).toBe('Sign-in cannot continue');
        expect(await b.page.textContent('main')).toContain(
          'This sign-in request has expired. Start again to get a new QR code.',
        );
        expect(
          Object.fromEntries(
            new URL((await b.page.getAttribute('#start-again', 'href'))!, stack.portal.url).searchParams,
          ),
        ).toEqual(tx.params);
        await expectPng(await b.shot('expired'));
        stack.bridgeClock.offsetSeconds = 0;
        await b.page.click('#start-again');
        await waitForState(b.page, 'waiting');
        expect((await portalTransaction(b.context)).sessionId).not.toBe(tx.sessionId);
        await expectPng(await b.shot('started again'));
      } finally {
        stack.bridgeClock.offsetSeconds = 0;
        await b.close();
      }
    });
  },
);
