import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import {
  createTestWallet,
  DEMO_VC_TYPE,
  issueCredentialToWallet,
  type TestIssuer,
  type TestWallet,
} from '@tessera/test-wallet';
import { bridgeSettings, createIssuerAndWallet, HOLDER_CLAIMS, seedIdentity } from '../support/holder.js';
import { startStack, type Stack } from '../support/stack.js';
import { launchChromium, newBrowserTest, type BrowserTest } from './support/browser.js';
import { expectPng, waitForState } from './support/expectations.js';

/**
 * Issue 14 §3, §5 and §7 in Chromium against the real relying party, portal, bridge and token service (PostgreSQL):
 * a bystander's junk POST leaves the page waiting and the wallet then signs the person in; a wallet that cannot
 * answer is shown at once; a wallet holding only the jwt_vc_json credential signs in; the page names the relying
 * party by its display name and shows the link as text.
 */
describe('wallet sign-in that others cannot spoil, in the browser', () => {
  let stack: Stack;
  let issuer: TestIssuer;
  let wallet: TestWallet;
  let identityId: string;
  let browser: Browser;

  beforeAll(async () => {
    ({ issuer, wallet } = await createIssuerAndWallet());
    const statusServer = await issuer.statusListServer();
    const settings = bridgeSettings(issuer);
    stack = await startStack({
      kind: 'postgres',
      bridge: {
        ...settings,
        walletLogin: { ...settings.walletLogin, alternative: { format: 'jwt_vc_json', type: DEMO_VC_TYPE } },
        statusListCache: { allowPrivateNetworkOrigins: [statusServer.url] },
      },
      portal: { statusPollSeconds: 0.5, clientDisplayNames: { 'demo-rp': 'Demo Library' } },
    });
    identityId = await seedIdentity(stack.platform, stack.identities);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    await issuer?.close();
  });

  async function openSignin(b: BrowserTest): Promise<string> {
    await b.page.goto(stack.rp.url);
    await b.page.click('#wallet-login');
    await b.page.waitForURL((url) => url.origin === stack.portal.url && url.pathname === '/signin');
    return (await b.page.getAttribute('#open-in-wallet', 'href'))!;
  }

  async function expectSignedIn(b: BrowserTest): Promise<void> {
    await b.page.waitForURL((url) => url.href.startsWith(stack.rp.redirectUri));
    expect(await b.page.textContent('h1')).toBe('You are signed in');
    expect(await b.page.textContent('#id-token-claims')).toContain(identityId);
  }

  it('a junk POST to the response URI, then the wallet: the page keeps waiting, then signs in', async () => {
    const b = await newBrowserTest(browser, 'junk post then a valid wallet');
    try {
      const requestUri = await openSignin(b);
      expect(await b.page.textContent('main')).toContain('You are signing in to Demo Library.');
      expect(await b.page.inputValue('#wallet-link')).toBe(requestUri);
      expect(await b.page.isVisible('#copy-link')).toBe(true);
      const requestUrl = new URL(requestUri).searchParams.get('request_uri')!;
      await fetch(requestUrl);
      const junk = await fetch(requestUrl.replace('/requests/', '/responses/'), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'response=not-a-jwe',
      });
      expect(junk.status).toBe(400);
      await waitForState(b.page, 'opened');
      // Several polls later the page still waits: the refused response did not end the sign-in.
      await b.page.waitForTimeout(1500);
      expect(await b.page.getAttribute('#status-text', 'data-state')).toBe('opened');
      expect(await b.page.isHidden('#restart')).toBe(true);
      await expectPng(await b.shot('after a junk post'));
      expect((await wallet.respond(requestUri)).status).toBe(200);
      await expectSignedIn(b);
      await expectPng(await b.shot('signed in'));
    } finally {
      await b.close();
    }
  });

  it('a wallet that cannot answer is shown at once; a jwt_vc_json wallet then signs in', async () => {
    const b = await newBrowserTest(browser, 'declined then jwt_vc_json');
    try {
      const requestUri = await openSignin(b);
      await expect((await createTestWallet()).respond(requestUri)).rejects.toMatchObject({
        code: 'no_matching_credentials',
      });
      await waitForState(b.page, 'declined');
      expect(await b.page.textContent('#status-text')).toContain('cannot answer this request');
      expect(await b.page.isVisible('#restart')).toBe(true);
      await expectPng(await b.shot('wallet cannot answer'));

      const w3cOnly = await createTestWallet();
      await issueCredentialToWallet(issuer, w3cOnly, { format: 'jwt_vc_json', claims: HOLDER_CLAIMS });
      expect((await w3cOnly.respond(requestUri, { formats: ['jwt_vc_json'] })).status).toBe(200);
      await expectSignedIn(b);
    } finally {
      await b.close();
    }
  });
});
