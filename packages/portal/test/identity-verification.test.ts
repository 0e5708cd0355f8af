import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { IDV_CALLBACK_PATH } from '@tessera/bridge';
import { defaultDemoUsers } from '@tessera/dev-idp';
import { createTestIssuer, type TestIssuer } from '@tessera/test-wallet';
import { createWalletOf, walletLoginSettings } from './support/holder.js';
import { attributeOf, textOf } from './support/html.js';
import { BRIDGE_IDV_CLIENT, startStack, type Stack } from './support/stack.js';
import { HttpClient } from '@tessera/platform/testing';

/** What the page's script reads from the portal's status endpoints. */
interface StatusAnswer {
  state: string;
  message: string;
  final: boolean;
  next?: string;
}

/** The wallet-login credential of a demo person of the development provider (her identifying claims and names). */
function credentialClaimsOf(username: string): Record<string, unknown> {
  const { claims } = defaultDemoUsers('service_id').find((u) => u.username === username)!;
  const { service_id, eduperson_principal_name, email, given_name, family_name } = claims;
  return { service_id, eduperson_principal_name, email, given_name, family_name };
}

/** Bound of each call of the bridge to the provider here, so that a slow provider is reached in a few seconds. */
const PROVIDER_TIMEOUT_SECONDS = 2;

/**
 * The identity-verification routes of the portal over HTTP (flows.md 5'–7', 000 §4.2), on both engines, with the
 * REAL bridge and the REAL development identity provider as the institution: the portal's explanation and its form
 * post, the provider's login form posted as a browser would, the bridge's callback, and the portal's callback page
 * for success and for each failure the bridge names (the reason in plain words and as a support reference). The
 * browser suite (test/browser/identity-verification.test.ts) walks the same flow in Chromium.
 */
describe.each(DATABASE_KINDS)(
  'identity verification through the portal, real bridge and identity provider (%s)',
  (kind) => {
    let stack: Stack;
    let issuer: TestIssuer;

    beforeAll(async () => {
      issuer = await createTestIssuer();
      stack = await startStack({
        kind,
        bridge: { ...walletLoginSettings(issuer), idv: { provider: { timeoutSeconds: PROVIDER_TIMEOUT_SECONDS } } },
        idp: true,
      });
    });
    afterAll(async () => {
      await stack?.close();
      await issuer?.close();
    });
    afterEach(async () => {
      await stack.idp!.setBehaviour('normal');
      stack.bridge.config!.idv.requiredClaims = [];
    });

    const callbackPrefix = () => `${stack.portal.url}/wallet/callback`;

    /**
     * A new holder (a fresh wallet of the trusted issuer) starts at the relying party; its wallet answers; the page's
     * poll says that identity verification is needed.
     */
    async function unknownHolder(language = 'en', username?: string) {
      // The wallet's credential names the person who then signs in at the institution (the bridge compares them).
      const wallet = await createWalletOf(issuer, username ? credentialClaimsOf(username) : undefined);
      const client = new HttpClient({ 'accept-language': language });
      const start = await client.follow(`${stack.rp.url}/login/wallet`, undefined, { method: 'POST' });
      expect(new URL(start.url).origin).toBe(stack.portal.url);
      const page = await start.response!.text();
      const poll = attributeOf(page, 'status', 'data-poll-url')!;
      expect((await wallet.respond(attributeOf(page, 'open-in-wallet', 'href')!)).status).toBe(200);
      const status = (await (await client.request(`${stack.portal.url}${poll}`)).json()) as StatusAnswer;
      // The login transaction in the portal's cookie (signed, not encrypted) names the bridge's session.
      const cookie = client.cookies(new URL(stack.portal.url).host).get('tessera-signin')!;
      const { sessionId } = JSON.parse(Buffer.from(cookie.split('.')[1]!, 'base64url').toString('utf8')) as {
        sessionId: string;
      };
      return { wallet, client, status, sessionId };
    }

    /** The explanation's form post: the portal initiates at the bridge and answers 303 to the provider. */
    async function postVerifyIdentity(client: HttpClient, origin = stack.portal.url) {
      return client.request(`${stack.portal.url}/signin/verify-identity`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      });
    }

    /** At the provider: its login page, then one of its two forms (credentials, or Cancel), up to the portal. */
    async function atInstitution(
      client: HttpClient,
      authorizationUrl: string,
      choice: { username: string } | 'cancel',
    ) {
      const login = await client.follow(authorizationUrl);
      const html = await login.response!.text();
      expect(login.response!.status).toBe(200);
      const action = new URL(/<form method="post" action="([^"]+)"/.exec(html)![1]!, login.url).href;
      const form =
        choice === 'cancel'
          ? { url: `${action}/abort`, body: '' }
          : {
              url: action,
              body: new URLSearchParams({
                username: choice.username,
                password: `${choice.username}-password`,
              }).toString(),
            };
      const back = await client.follow(form.url, callbackPrefix(), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.body,
      });
      expect(back.url.startsWith(`${callbackPrefix()}?`)).toBe(true);
      // The chain went through the bridge's callback (000 §4.2), the hop before the portal.
      expect(client.visited.at(-1)).toMatch(new RegExp(`^GET ${stack.bridge.url}${IDV_CALLBACK_PATH} 303$`));
      return new URL(back.url);
    }

    /** The whole way to the portal's callback for a new holder who signs in as `username` (or cancels). */
    async function verification(choice: { username: string } | 'cancel', language = 'en') {
      const holder = await unknownHolder(language, choice === 'cancel' ? undefined : choice.username);
      const post = await postVerifyIdentity(holder.client);
      expect(post.status).toBe(303);
      const callback = await atInstitution(holder.client, post.headers.get('location')!, choice);
      const page = await holder.client.request(callback.href);
      return { ...holder, callback, page, html: await page.text() };
    }

    it('unknown holder: 202, the explanation, the institution, the bridge callback, then complete answers 200', async () => {
      const { client, status, sessionId } = await unknownHolder('de', 'alice');
      expect(status).toMatchObject({
        state: 'idv',
        next: '/signin/verify-identity',
        message: 'Ihr Nachweis ist bestätigt. Noch ein Schritt: Bestätigen Sie Ihre Identität.',
        final: false,
      });
      const page = await client.request(`${stack.portal.url}/signin/verify-identity`);
      const html = await page.text();
      expect(page.status).toBe(200);
      expect(textOf(html, 'verify-identity')).toBe('Weiter zu Ihrer Einrichtung');

      // A post from another origin starts nothing.
      const foreign = await postVerifyIdentity(client, 'https://evil.example');
      expect(foreign.status).toBe(403);
      expect(foreign.headers.get('location')).toBeNull();

      const post = await postVerifyIdentity(client);
      expect(post.status).toBe(303);
      const authorize = new URL(post.headers.get('location')!);
      expect(`${authorize.origin}${authorize.pathname}`).toBe(`${stack.idp!.issuer}/authorize`);
      expect(authorize.searchParams.get('client_id')).toBe(BRIDGE_IDV_CLIENT.clientId);
      expect(authorize.searchParams.get('redirect_uri')).toBe(`${stack.bridge.url}${IDV_CALLBACK_PATH}`);
      expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');

      const callback = await atInstitution(client, authorize.href, { username: 'alice' });
      expect(Object.fromEntries(callback.searchParams)).toEqual({ session: sessionId, status: 'success' });
      const finishing = await client.request(callback.href);
      const finishingHtml = await finishing.text();
      expect(finishing.status).toBe(200);
      expect(textOf(finishingHtml, 'status-text')).toBe('Ihre Identitätsprüfung wird abgeschlossen …');
      expect(attributeOf(finishingHtml, 'status', 'data-max-polls')).toBe('30');
      const poll = attributeOf(finishingHtml, 'status', 'data-poll-url')!;
      const answer = (await (await client.request(`${stack.portal.url}${poll}`)).json()) as StatusAnswer;
      expect(answer.state).toBe('verified');
      const next = new URL(answer.next!);
      expect(`${next.origin}${next.pathname}`).toBe(`${stack.tokenService.url}/authorize`);
      expect(next.searchParams.get('login_hint')).toBe(`oid4vp:${sessionId}`);
      expect(next.searchParams.get('client_id')).toBe('demo-rp');
    });

    it('Cancel at the institution: access_denied, in plain words, with the way back to the original request', async () => {
      const { callback, page, html, sessionId } = await verification('cancel');
      expect(Object.fromEntries(callback.searchParams)).toEqual({
        session: sessionId,
        status: 'error',
        reason: 'access_denied',
      });
      expect(page.status).toBe(200);
      expect(textOf(html, 'main')).toContain('The sign-in at your institution was cancelled or refused.');
      expect(html).toContain('Reference for support: access_denied');
      const restart = new URL(attributeOf(html, 'start-again', 'href')!, stack.portal.url);
      expect(restart.pathname).toBe('/signin');
      expect(restart.searchParams.get('client_id')).toBe('demo-rp');
      expect(restart.searchParams.get('redirect_uri')).toBe(stack.rp.redirectUri);
    });

    it.each([
      ['token_error', 'token_exchange_failed', 'The answer from your institution could not be confirmed.'],
      ['wrong_nonce', 'id_token_invalid', 'The answer from your institution could not be verified.'],
      [
        'slow',
        'provider_unavailable',
        'Your institution’s sign-in service could not be reached. Please try again in a moment.',
      ],
    ] as const)(
      'the provider misbehaves (%s): the bridge reports %s, the portal says it plainly',
      async (behaviour, reason, sentence) => {
        await stack.idp!.setBehaviour(behaviour, { delaySeconds: PROVIDER_TIMEOUT_SECONDS * 2 });
        const { callback, html } = await verification({ username: 'bob' });
        expect(callback.searchParams.get('status')).toBe('error');
        expect(callback.searchParams.get('reason')).toBe(reason);
        expect(textOf(html, 'main')).toContain(sentence);
        expect(html).toContain(`Reference for support: ${reason}`);
        expect(attributeOf(html, 'start-again', 'href')).toMatch(/^\/signin\?/);
      },
    );

    it('a claim the deployment requires is not released: missing_claim, in German', async () => {
      stack.bridge.config!.idv.requiredClaims = ['student_number'];
      const { callback, html } = await verification({ username: 'carol' }, 'de');
      expect(callback.searchParams.get('reason')).toBe('missing_claim');
      expect(textOf(html, 'main')).toContain(
        'Ihre Einrichtung hat nicht die Angaben geteilt, die für die Verbindung Ihrer Wallet nötig sind.',
      );
      expect(html).toContain('Referenz für den Support: missing_claim');
    });

    it('an institutional account already linked to another wallet: already_bound', async () => {
      // First, a wallet is linked to bob (success); then another new wallet signs in at the institution as bob.
      const first = await verification({ username: 'bob' });
      expect(first.callback.searchParams.get('status')).toBe('success');
      const { callback, html } = await verification({ username: 'bob' });
      expect(callback.searchParams.get('reason')).toBe('already_bound');
      expect(textOf(html, 'main')).toContain('Your institution account is already linked to a different wallet.');
    });
  },
);
