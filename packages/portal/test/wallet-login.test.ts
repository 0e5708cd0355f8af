import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestIssuer, TestWallet } from '@tessera/test-wallet';
import { bridgeSettings, createIssuerAndWallet, seedIdentity } from './support/holder.js';
import { attributeOf, textOf } from './support/html.js';
import { startStack, type Stack } from './support/stack.js';
import { HttpClient } from '@tessera/platform/testing';
import { completedWalletSession } from './support/wallet-flow.js';

/** What the page's script reads from the portal's status endpoints. */
interface StatusAnswer {
  state: string;
  message: string;
  final: boolean;
  next: string;
}

/**
 * The wallet login of flows.md (known holder), over HTTP against the real services of one process: the demo relying
 * party, the portal, the bridge (the project's test wallet answers its request) and the token service. PostgreSQL
 * only for now: on PGlite the token service refuses every code exchange ("already used", README "Known issues").
 */
describe.each([1, 2] as const)(
  'wallet login through the portal, real services (postgres, %i replica(s) of bridge and token service)',
  (replicas) => {
    let stack: Stack;
    let issuer: TestIssuer;
    let wallet: TestWallet;
    let identityId: string;

    beforeAll(async () => {
      ({ issuer, wallet } = await createIssuerAndWallet());
      stack = await startStack({ kind: 'postgres', bridge: bridgeSettings(issuer), replicas });
      identityId = await seedIdentity(stack.platform, stack.identities);
    });
    afterAll(async () => {
      await stack?.close();
      await issuer?.close();
    });

    it('goes from the relying party through the QR and the wallet to tokens at the relying party', async () => {
      const client = new HttpClient({ 'accept-language': 'en' });
      const start = await client.follow(`${stack.rp.url}/login/wallet`, undefined, { method: 'POST' });
      expect(new URL(start.url).origin).toBe(stack.portal.url);
      expect(start.response!.status).toBe(200);
      const page = await start.response!.text();
      const requestUri = attributeOf(page, 'open-in-wallet', 'href')!;
      expect(requestUri).toMatch(/^openid4vp:\/\//);
      const pollUrl = attributeOf(page, 'status', 'data-poll-url')!;
      const status = async () => (await client.request(`${stack.portal.url}${pollUrl}`)).json();
      expect(await status()).toMatchObject({ state: 'waiting', final: false });

      await wallet.respond(requestUri);
      const answer = (await status()) as StatusAnswer;
      expect(answer.state).toBe('verified');
      const next = new URL(answer.next);
      expect(next.origin + next.pathname).toBe(`${stack.tokenService.url}/authorize`);
      expect(next.searchParams.get('client_id')).toBe('demo-rp');
      expect(next.searchParams.get('login_hint')).toMatch(/^oid4vp:[0-9a-f-]{36}$/);

      const end = await client.follow(answer.next);
      expect(end.url.startsWith(stack.rp.redirectUri)).toBe(true);
      const result = await end.response!.text();
      expect(end.response!.status).toBe(200);
      const claims = textOf(result, 'id-token-claims')!;
      expect(claims).toContain(identityId);
      expect(claims).toContain('urn:tessera:oid4vp:vp');
      expect(claims).toContain('S-4711');
      // With two replicas, both instances of each service served part of the flow.
      for (const proxy of stack.proxies) expect(proxy.counts.every((n) => n > 0)).toBe(true);
    });

    it('the session cannot be used for another request: /authorize with another PKCE challenge is refused', async () => {
      const { client, next } = await completedWalletSession(stack, wallet);
      const tampered = new URL(next);
      tampered.searchParams.set('code_challenge', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
      const end = await client.follow(tampered.href, stack.rp.redirectUri);
      expect(new URL(end.url).searchParams.get('error')).toBe('access_denied');
    });
  },
);
