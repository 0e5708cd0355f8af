import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestWallet,
  DEMO_VC_TYPE,
  issueCredentialToWallet,
  type TestIssuer,
  type TestWallet,
} from '@tessera/test-wallet';
import { HttpClient } from '@tessera/platform/testing';
import { bridgeSettings, createIssuerAndWallet, HOLDER_CLAIMS, seedIdentity } from './support/holder.js';
import { attributeOf, textOf } from './support/html.js';
import { startStack, type Stack } from './support/stack.js';

interface StatusAnswer {
  state: string;
  message: string;
  final: boolean;
  next?: string;
}

/**
 * The sign-in survives what others post and says at once what the wallet says (issue 14 §3, §5), over HTTP with the
 * real relying party, portal, bridge and token service: a bystander's junk POST to the response URI does not end the
 * sign-in; a wallet that cannot answer is shown at once; a wallet that holds only the W3C credential signs in with
 * the wallet-login query's alternative (DCQL credential_sets). PostgreSQL (see wallet-login.test.ts).
 */
describe('wallet login: junk, refusal and the other format, through the portal (postgres)', () => {
  let stack: Stack;
  let issuer: TestIssuer;
  let wallet: TestWallet;
  let identityId: string;

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
      portal: { clientDisplayNames: { 'demo-rp': 'Demo Library' } },
    });
    identityId = await seedIdentity(stack.platform, stack.identities);
  });
  afterAll(async () => {
    await stack?.close();
    await issuer?.close();
  });

  async function startSignin() {
    const client = new HttpClient({ 'accept-language': 'en' });
    const start = await client.follow(`${stack.rp.url}/login/wallet`, undefined, { method: 'POST' });
    const page = await start.response!.text();
    const requestUri = attributeOf(page, 'open-in-wallet', 'href')!;
    const status = async () =>
      (await (
        await client.request(`${stack.portal.url}${attributeOf(page, 'status', 'data-poll-url')}`)
      ).json()) as StatusAnswer;
    return { client, requestUri, status };
  }

  async function tokensAfter(client: HttpClient, answer: StatusAnswer): Promise<string> {
    expect(answer.state).toBe('verified');
    const end = await client.follow(answer.next!);
    expect(end.url.startsWith(stack.rp.redirectUri)).toBe(true);
    return textOf(await end.response!.text(), 'id-token-claims')!;
  }

  it('names the relying party by its display name, shows the link as text, serves favicon.ico', async () => {
    const client = new HttpClient({ 'accept-language': 'en' });
    const start = await client.follow(`${stack.rp.url}/login/wallet`, undefined, { method: 'POST' });
    const page = await start.response!.text();
    expect(page).toContain('You are signing in to Demo Library.');
    expect(page).not.toContain('signing in to demo-rp');
    expect(attributeOf(page, 'wallet-link', 'value')).toBe(attributeOf(page, 'open-in-wallet', 'href'));
    const icon = await fetch(`${stack.portal.url}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/x-icon');
    expect(Buffer.from(await icon.arrayBuffer()).subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0]));
  });

  it("a bystander's junk POST leaves the page waiting; the wallet's valid answer then signs in", async () => {
    const { client, requestUri, status } = await startSignin();
    const requestUrl = new URL(requestUri).searchParams.get('request_uri')!;
    await fetch(requestUrl);
    const junk = await fetch(requestUrl.replace('/requests/', '/responses/'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'response=eyJhbGciOiJub25lIn0.junk',
    });
    expect(junk.status).toBe(400);
    expect(await status()).toMatchObject({ state: 'opened', final: false });

    expect((await wallet.respond(requestUri)).status).toBe(200);
    expect(await tokensAfter(client, await status())).toContain(identityId);
  });

  it('a wallet that cannot answer is shown at once, and another wallet may still answer', async () => {
    const { client, requestUri, status } = await startSignin();
    const empty = await createTestWallet();
    await expect(empty.respond(requestUri)).rejects.toMatchObject({ code: 'no_matching_credentials' });
    const declined = await status();
    expect(declined).toMatchObject({ state: 'declined', final: false });
    expect(declined.message).toMatch(/cannot answer this request/);

    expect((await wallet.respond(requestUri)).status).toBe(200);
    expect(await tokensAfter(client, await status())).toContain(identityId);
  });

  it('a wallet holding only the jwt_vc_json credential signs in (credential_sets)', async () => {
    const w3cOnly = await createTestWallet();
    await issueCredentialToWallet(issuer, w3cOnly, { format: 'jwt_vc_json', claims: HOLDER_CLAIMS });
    const { client, requestUri, status } = await startSignin();
    expect((await w3cOnly.respond(requestUri, { formats: ['jwt_vc_json'] })).status).toBe(200);
    expect(await tokensAfter(client, await status())).toContain(identityId);
  });
});
