import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startStack, type Stack } from '../support/stack.js';
import { startStandInBridge, type StandInBridge } from '../support/stand-in-bridge.js';
import { launchChromium, newBrowserTest, type BrowserTest } from './support/browser.js';
import { expectPng, portalTransaction, tabTo, waitForState } from './support/expectations.js';

/**
 * The identity-verification pages in the browser (flows.md 5'-7'). The bridge's IDV API is not built yet, so these
 * run against the STAND-IN bridge of test/support/stand-in-bridge.ts (spec tables of 000 §4.1 and §4.2, its own
 * institutional login and callback redirect); the token service, the portal and the demo relying party are real.
 * The final browser suite replaces the stand-in with the real bridge and the development identity provider.
 */
describe('identity verification in the browser (stand-in bridge)', () => {
  let stack: Stack;
  let bridge: StandInBridge;
  let browser: Browser;

  beforeAll(async () => {
    bridge = await startStandInBridge();
    stack = await startStack({
      kind: 'postgres',
      bridgeUrl: bridge.url,
      onTokenService: (url) => bridge.trustIssuer(url),
      portal: { statusPollSeconds: 0.5 },
    });
    bridge.portalUrl = stack.portal.url;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    await bridge?.close();
  });

  /** Starts a sign-in at the demo relying party and answers the portal's session as the wallet would have. */
  async function walletVerified(b: BrowserTest, knownHolder: boolean) {
    await b.page.goto(stack.rp.url);
    await b.page.click('#wallet-login');
    await waitForState(b.page, 'waiting');
    const tx = await portalTransaction(b.context);
    const session = bridge.sessions.get(tx.sessionId)!;
    session.knownHolder = knownHolder;
    session.status = 'VERIFIED';
    return { tx, session };
  }

  it('unknown holder: explanation, institution login, callback, then tokens at the relying party', async () => {
    const b = await newBrowserTest(browser, 'identity verification success');
    try {
      bridge.nextIdv = { status: 'success' };
      const { session } = await walletVerified(b, false);
      await b.page.waitForURL(`${stack.portal.url}/signin/verify-identity`);
      expect(await b.page.textContent('h1')).toBe('Confirm your identity');
      expect(await b.page.locator('ol.steps li').count()).toBe(3);
      await expectPng(await b.shot('verify identity page'));

      // Keyboard only: Tab to the button, Enter submits the form; the portal asks the bridge and redirects.
      await tabTo(b.page, 'verify-identity');
      await b.page.keyboard.press('Enter');
      await b.page.waitForURL((url) => url.href.startsWith(stack.rp.redirectUri));
      expect(session.redeemed).toBe(true);
      expect(bridge.calls).toEqual(
        expect.arrayContaining([
          'POST /auth/oid4vp/sessions/' + session.id + '/idv/initiate',
          'GET /auth/oid4vp/sessions/' + session.id + '/idv/status',
        ]),
      );
      expect(await b.page.textContent('#id-token-claims')).toContain(bridge.userId);
      await expectPng(await b.shot('relying party signed in'));
    } finally {
      await b.close();
    }
  });

  it('the finishing page follows the IDV status and says so while it waits', async () => {
    const b = await newBrowserTest(browser, 'identity verification finishing');
    try {
      bridge.nextIdv = { status: 'success' };
      // Many REDIRECTED answers: the page shows its waiting text long enough to be seen.
      bridge.idvPendingPolls = 1000;
      const { session } = await walletVerified(b, false);
      await b.page.waitForURL(`${stack.portal.url}/signin/verify-identity`);
      await b.page.click('#verify-identity');
      await b.page.waitForURL((url) => url.pathname === '/wallet/callback');
      expect(await b.page.textContent('h1')).toBe('Finishing your sign-in');
      expect(await b.page.textContent('#status-text')).toBe('Finishing your identity verification…');
      await expectPng(await b.shot('finishing'));
      bridge.idvPendingPolls = 0;
      session.idv!.pendingPolls = 0;
      await b.page.waitForURL((url) => url.href.startsWith(stack.rp.redirectUri));
      expect(await b.page.textContent('h1')).toBe('You are signed in');
    } finally {
      bridge.idvPendingPolls = 1;
      await b.close();
    }
  });

  it('the institution refuses: a plain sentence and a way to start again', async () => {
    const b = await newBrowserTest(browser, 'identity verification refused');
    try {
      bridge.nextIdv = { status: 'error', reason: 'access_denied' };
      const { tx } = await walletVerified(b, false);
      await b.page.waitForURL(`${stack.portal.url}/signin/verify-identity`);
      await b.page.click('#verify-identity');
      await b.page.waitForURL((url) => url.pathname === '/wallet/callback');
      expect(await b.page.textContent('h1')).toBe('Identity verification did not succeed');
      expect(await b.page.textContent('main')).toContain('The sign-in at your institution was cancelled or refused.');
      const restart = new URL((await b.page.getAttribute('#start-again', 'href'))!, stack.portal.url);
      expect(Object.fromEntries(restart.searchParams)).toEqual(tx.params);
      await expectPng(await b.shot('refused'));
    } finally {
      bridge.nextIdv = { status: 'success' };
      await b.close();
    }
  });

  it('a credential the bridge refused: the reason in plain words, the QR gone, start again offered', async () => {
    const b = await newBrowserTest(browser, 'credential refused', { acceptLanguage: 'de' });
    try {
      await b.page.goto(stack.rp.url);
      await b.page.click('#wallet-login');
      await waitForState(b.page, 'waiting');
      const session = bridge.sessions.get((await portalTransaction(b.context)).sessionId)!;
      session.status = 'VERIFYING';
      await waitForState(b.page, 'checking');
      expect(await b.page.textContent('#status-text')).toBe('Ihr Nachweis wird geprüft …');
      session.failure = { check: 'issuer_trust', reason: 'issuer not trusted' };
      session.status = 'ERROR';
      await waitForState(b.page, 'failed');
      expect(await b.page.textContent('#status-text')).toBe(
        'Die Anmeldung ist nicht gelungen. Der Nachweis stammt von einem Aussteller, den dieser Dienst nicht akzeptiert.',
      );
      expect(await b.page.isHidden('#qr-block')).toBe(true);
      expect(await b.page.isVisible('#restart a')).toBe(true);
      await expectPng(await b.shot('credential refused'));
    } finally {
      await b.close();
    }
  });
});
