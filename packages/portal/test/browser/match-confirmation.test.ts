import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { TenantUnit } from '@tessera/identity';
import { createTestIssuer, type TestIssuer, type TestWallet } from '@tessera/test-wallet';
import { createWalletOf, walletLoginSettings } from '../support/holder.js';
import { startStack, type Stack } from '../support/stack.js';
import { launchChromium, newBrowserTest, type BrowserTest } from './support/browser.js';
import { expectPng, portalTransaction, tabTo, waitForState } from './support/expectations.js';

/** The `sub` of the ID token the demo relying party shows. */
async function signedInSub(page: Page): Promise<string> {
  const rows = page.locator('#id-token-claims tbody tr');
  for (let i = 0; i < (await rows.count()); i++) {
    const row = rows.nth(i);
    if ((await row.locator('th').textContent())?.trim() === 'sub')
      return (await row.locator('td').textContent())!.trim();
  }
  throw new Error('no sub in the ID token claims');
}

/**
 * Match confirmation in the browser (issue 14 §11), with the REAL bridge, token service and development identity
 * provider: attribute matching finds accounts it cannot be sure of, the portal shows them masked, and the person
 * confirms one (signed in as that account) or declines (identity verification at the institution instead).
 */
describe('match confirmation in the browser, real bridge and development identity provider', () => {
  let stack: Stack;
  let issuer: TestIssuer;
  let browser: Browser;

  beforeAll(async () => {
    issuer = await createTestIssuer();
    stack = await startStack({
      kind: 'postgres',
      bridge: {
        ...walletLoginSettings(issuer),
        identityResolution: {
          autoMatchAttributes: ['SERVICE_ID', 'EPPN'],
          matchConfirmation: { institutionName: 'University of Examples' },
        },
      },
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

  const demo = <T>(run: (unit: TenantUnit) => Promise<T>) =>
    stack.platform.db.withTenant('demo', (sql) => run({ tenantId: 'demo', sql }));
  const idpOrigin = () => new URL(stack.idp!.issuer).origin;

  async function identityWith(claims: Record<string, unknown>, federationSubject?: string): Promise<string> {
    return demo(async (unit) => {
      const created = await stack.identities.createIdentity(unit, {
        claims,
        assurance: { acr: 'urn:tessera:federation', amr: ['federation'] },
      });
      if (federationSubject)
        await stack.identities.bindFederation(
          unit,
          created.internalIdentityId,
          'https://idp.example',
          federationSubject,
        );
      return created.internalIdentityId;
    });
  }

  /** From the relying party's wallet button to the portal's QR page; the wallet answers; the candidate page follows. */
  async function walletPresents(b: BrowserTest, wallet: TestWallet): Promise<void> {
    await b.page.goto(stack.rp.url);
    await b.page.click('#wallet-login');
    await b.page.waitForURL((url) => url.origin === stack.portal.url && url.pathname === '/signin');
    await waitForState(b.page, 'waiting');
    await expectPng(await b.shot('sign-in page waiting for the wallet'));
    await wallet.respond((await b.page.getAttribute('#open-in-wallet', 'href'))!);
    await b.page.waitForURL(`${stack.portal.url}/signin/confirm-account`);
  }

  it('several accounts match: masked, the person picks theirs, and is signed in as that account', async () => {
    const b = await newBrowserTest(browser, 'match confirmation confirm');
    try {
      // One account found by the service ID (an institutional one), another by the eppn; neither is certain.
      const byService = await identityWith(
        { service_id: 'S-7001', email: 'grace.hopper@uni.example', family_name: 'Hopper' },
        'grace-1',
      );
      const byEppn = await identityWith({
        eduperson_principal_name: 'grace@uni.example',
        email: 'g.hopper@mail.example',
        family_name: 'Hopper',
      });
      const wallet = await createWalletOf(issuer, {
        service_id: 'S-7001',
        eduperson_principal_name: 'grace@uni.example',
        email: 'grace@wallet.example',
        given_name: 'Grace',
        family_name: 'Hopper',
      });
      await walletPresents(b, wallet);
      const tx = await portalTransaction(b.context);

      expect(await b.page.textContent('h1')).toBe('Is this your account?');
      expect(await b.page.textContent('main')).toContain('matches more than one account');
      expect(await b.page.locator('input[type=radio][name=matchId]').count()).toBe(2);
      expect(await b.page.textContent('label[for=account-1]')).toContain('Account at University of Examples');
      expect(await b.page.textContent('label[for=account-1]')).toContain('g***@uni.example');
      expect(await b.page.textContent('label[for=account-2]')).toContain('Account 2');
      expect(await b.page.textContent('label[for=account-2]')).toContain('Institution username: g***@uni.example');
      expect(await b.page.textContent('label[for=account-2]')).toContain('E-mail: g***@mail.example');
      // Nothing beyond masked values: no full address, no name, no identity id.
      const html = await b.page.content();
      for (const secret of ['grace.hopper@', 'g.hopper@', 'grace@uni.example', 'Hopper', 'S-7001', byService, byEppn])
        expect(html).not.toContain(secret);
      await expectPng(await b.shot('candidate page'));

      // Confirm without a choice: the browser asks for one (the radio group is required) and nothing is posted.
      await b.page.click('#confirm-account');
      expect(new URL(b.page.url()).pathname).toBe('/signin/confirm-account');
      expect(await b.page.locator('input[name=matchId]:invalid').count()).toBeGreaterThan(0);

      // By keyboard: Tab to the second account, choose it, confirm.
      await tabTo(b.page, 'account-1');
      await b.page.keyboard.press('ArrowDown');
      expect(await b.page.isChecked('#account-2')).toBe(true);
      await expectPng(await b.shot('second account chosen'));
      await b.page.click('#confirm-account');
      await b.page.waitForURL((url) => url.href.startsWith(stack.rp.redirectUri));
      expect(await b.page.textContent('h1')).toBe('You are signed in');
      expect(await signedInSub(b.page)).toBe(byEppn);
      await expectPng(await b.shot('relying party signed in as the chosen account'));

      const chosen = await demo((unit) => stack.identities.get(unit, byEppn));
      expect(chosen!.bindings.walletBound).toBe(true);
      expect((await demo((unit) => stack.identities.get(unit, byService)))!.bindings.walletBound).toBe(false);

      // Going back to the candidate page after the sign-in: nothing left to choose.
      const back = await b.context.request.get(`${stack.portal.url}/signin/confirm-account`);
      expect(back.status()).toBe(409);
      expect(await back.text()).toContain('no longer waiting for a choice of account');
      const again = await b.context.request.post(`${stack.portal.url}/signin/confirm-account`, {
        form: { decision: 'decline' },
        headers: { origin: stack.portal.url },
        maxRedirects: 0,
      });
      expect(again.status()).toBe(409);
      expect((await portalTransaction(b.context)).sessionId).toBe(tx.sessionId);
    } finally {
      await b.close();
    }
  });

  it('none is theirs: the person declines and verifies at the institution, signed in as their own account', async () => {
    const b = await newBrowserTest(browser, 'match confirmation decline');
    try {
      // An account found by bob's service ID that lacks his eppn: an uncertain match, and not his.
      const stranger = await identityWith({ service_id: 'S-1002' });
      const wallet = await createWalletOf(issuer, {
        service_id: 'S-1002',
        eduperson_principal_name: 'bob@uni.example',
        email: 'bob@wallet.example',
        given_name: 'Bob',
        family_name: 'Baker',
      });
      await walletPresents(b, wallet);
      expect(await b.page.textContent('main')).toContain('matches an account here');
      expect(await b.page.locator('input[type=radio][name=matchId]').count()).toBe(1);
      expect(await b.page.isChecked('#account-1')).toBe(true);
      expect(await b.page.textContent('label[for=account-1]')).toContain('Service ID: ***');
      await expectPng(await b.shot('one uncertain account'));

      await b.page.click('#decline-account');
      await b.page.waitForURL(`${stack.portal.url}/signin/verify-identity`);
      expect(await b.page.textContent('h1')).toBe('Confirm your identity');
      await expectPng(await b.shot('verify identity page after declining'));

      await b.page.click('#verify-identity');
      await b.page.waitForURL((url) => url.origin === idpOrigin() && url.pathname.startsWith('/interaction/'));
      await b.page.fill('#username', 'bob');
      await b.page.fill('#password', 'bob-password');
      await b.page.getByRole('button', { name: 'Sign in' }).click();
      await b.page.waitForURL((url) => url.href.startsWith(stack.rp.redirectUri));
      expect(await b.page.textContent('h1')).toBe('You are signed in');
      await expectPng(await b.shot('relying party signed in after identity verification'));

      const bob = await demo((unit) =>
        stack.identities.findByFederationSubject(unit, stack.idp!.issuer, 'dev-idp-bob'),
      );
      expect(bob).not.toBeNull();
      expect(await signedInSub(b.page)).toBe(bob!.internalIdentityId);
      expect(bob!.internalIdentityId).not.toBe(stranger);
      expect((await demo((unit) => stack.identities.get(unit, stranger)))!.bindings.walletBound).toBe(false);
    } finally {
      await b.close();
    }
  });

  it('hostile posts: a foreign origin, an id of no candidate, a malformed choice, no transaction; the session stays open', async () => {
    const b = await newBrowserTest(browser, 'match confirmation hostile posts');
    try {
      await identityWith({ service_id: 'S-7100' });
      await identityWith({ service_id: 'S-7100' });
      const wallet = await createWalletOf(issuer, {
        service_id: 'S-7100',
        eduperson_principal_name: 'hostile@uni.example',
        given_name: 'H',
        family_name: 'O',
      });
      await walletPresents(b, wallet);
      const url = `${stack.portal.url}/signin/confirm-account`;
      const ids = await b.page
        .locator('input[name=matchId]')
        .evaluateAll((inputs) => inputs.map((i) => (i as unknown as { value: string }).value));
      expect(ids).toHaveLength(2);
      const post = (form: Record<string, string>, origin = stack.portal.url) =>
        b.context.request.post(url, { form, headers: { origin }, maxRedirects: 0 });

      // Without the transaction cookie (another browser): no sign-in to answer for.
      const stranger = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: stack.portal.url },
        body: new URLSearchParams({ decision: 'confirm', matchId: ids[0]! }).toString(),
        redirect: 'manual',
      });
      expect(stranger.status).toBe(400);
      expect((await post({ decision: 'confirm', matchId: ids[0]! }, 'https://evil.example')).status()).toBe(403);
      const foreign = await post({ decision: 'confirm', matchId: 'AAAAAAAAAAAAAAAAAAAAAA' });
      expect(foreign.status()).toBe(400);
      expect(await foreign.text()).toContain('Please choose one of the accounts listed.');
      const malformed: Record<string, string>[] = [
        { decision: 'confirm' },
        { decision: 'maybe', matchId: ids[0]! },
        { decision: 'confirm', matchId: 'a b' },
      ];
      for (const form of malformed) {
        const res = await post(form);
        expect(res.status(), JSON.stringify(form)).toBe(400);
        expect(await res.text()).toContain('Please choose one of the accounts listed.');
      }
      // Still waiting for the person's choice; the real one still works.
      await b.page.reload();
      expect(await b.page.locator('input[name=matchId]').count()).toBe(2);
      await b.page.check('#account-1');
      await b.page.click('#confirm-account');
      await b.page.waitForURL((u) => u.href.startsWith(stack.rp.redirectUri));
      expect(await b.page.textContent('h1')).toBe('You are signed in');
    } finally {
      await b.close();
    }
  });
});
