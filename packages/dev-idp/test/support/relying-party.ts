import * as client from 'openid-client';
import type { DevClient, DevIdentityProvider } from '../../src/index.js';
import { Browser } from './browser.js';

// Nothing listens here: the tests read the code from the Location header that points at it.
export const REDIRECT_URI = 'http://127.0.0.1:9/callback';
export const RP: DevClient = { clientId: 'test-rp', clientSecret: 'test-rp-secret', redirectUris: [REDIRECT_URI] };
export const FULL_SCOPE = 'openid profile email service_id';

/** openid-client as the relying party; plain http is allowed for the loopback provider only. */
export async function discover(idp: DevIdentityProvider): Promise<client.Configuration> {
  return client.discovery(new URL(idp.issuer), RP.clientId, RP.clientSecret, undefined, {
    execute: [client.allowInsecureRequests],
  });
}

export interface PendingLogin {
  authorizationUrl: URL;
  state: string;
  nonce: string;
  verifier: string;
}

export async function beginLogin(config: client.Configuration, scope = FULL_SCOPE): Promise<PendingLogin> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const authorizationUrl = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return { authorizationUrl, state, nonce, verifier };
}

/** The action of the first form on the page: the login form. */
export function loginFormAction(html: string, pageUrl: URL): URL {
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error('No login form on the page');
  return new URL(action, pageUrl);
}

/** Opens the login page of a fresh login and signs in; returns the callback URL the provider sent back. */
export async function signIn(config: client.Configuration, username: string, password: string, scope = FULL_SCOPE) {
  const pending = await beginLogin(config, scope);
  const browser = new Browser();
  const page = await browser.follow(pending.authorizationUrl, REDIRECT_URI);
  if (page.response?.status !== 200) throw new Error(`Expected the login page, got ${page.response?.status}`);
  const action = loginFormAction(await page.response.text(), page.url);
  const back = await browser.submit(action, { username, password }, REDIRECT_URI);
  if (back.response) throw new Error(`Expected a redirect to the relying party, got ${back.response.status}`);
  return { ...pending, callback: back.url };
}

export function exchange(config: client.Configuration, login: PendingLogin & { callback: URL }) {
  return client.authorizationCodeGrant(config, login.callback, {
    pkceCodeVerifier: login.verifier,
    expectedState: login.state,
    expectedNonce: login.nonce,
    idTokenExpected: true,
  });
}
