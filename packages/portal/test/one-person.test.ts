import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestIssuer, type TestIssuer } from '@tessera/test-wallet';
import { HttpClient } from '@tessera/platform/testing';
import { createWalletOf, walletLoginSettings } from './support/holder.js';
import { attributeOf, textOf } from './support/html.js';
import { startStack, type Stack } from './support/stack.js';

/**
 * One person, one set of claims (issue 14 §1), over HTTP with the real relying party, portal, bridge, token service
 * and development identity provider: alice's wallet credential (her identifying claims, other names) is bound to her
 * through identity verification, and the ID token of the wallet login and of the federated login name the same `sub`
 * with the same claims, the institution's; a credential of another person is refused at IDV (claims_mismatch).
 */
describe('one person on both sign-in paths (postgres)', () => {
  let stack: Stack;
  let issuer: TestIssuer;

  beforeAll(async () => {
    issuer = await createTestIssuer();
    stack = await startStack({ kind: 'postgres', bridge: walletLoginSettings(issuer), idp: true });
  });
  afterAll(async () => {
    await stack?.close();
    await issuer?.close();
  });

  /** The provider's login form, submitted as `username`; answers where the browser ended. */
  async function signInAtInstitution(client: HttpClient, url: string, username: string, stopAt: string) {
    const login = await client.follow(url);
    const html = await login.response!.text();
    const action = new URL(/<form method="post" action="([^"]+)"/.exec(html)![1]!, login.url).href;
    return client.follow(action, stopAt, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username, password: `${username}-password` }).toString(),
    });
  }

  /** The wallet answers at the portal; identity verification at the institution as `username`. */
  async function walletThenInstitution(credential: Record<string, unknown>, username: string) {
    const client = new HttpClient({ 'accept-language': 'en' });
    const start = await client.follow(`${stack.rp.url}/login/wallet`, undefined, { method: 'POST' });
    const page = await start.response!.text();
    expect(
      (await (await createWalletOf(issuer, credential)).respond(attributeOf(page, 'open-in-wallet', 'href')!)).status,
    ).toBe(200);
    const verify = await client.request(`${stack.portal.url}/signin/verify-identity`, {
      method: 'POST',
      headers: { origin: stack.portal.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(verify.status).toBe(303);
    const back = await signInAtInstitution(
      client,
      verify.headers.get('location')!,
      username,
      `${stack.portal.url}/wallet/callback`,
    );
    return { client, callback: new URL(back.url) };
  }

  it("the wallet path and the federated path give alice's sub the same claims: the institution's", async () => {
    const credential = {
      service_id: 'S-1001',
      eduperson_principal_name: 'alice@uni.example',
      email: 'ali@wallet.example',
      given_name: 'Ali',
      family_name: 'Doe',
    };
    const { client, callback } = await walletThenInstitution(credential, 'alice');
    expect(callback.searchParams.get('status')).toBe('success');
    const finishing = await (await client.request(callback.href)).text();
    const poll = attributeOf(finishing, 'status', 'data-poll-url')!;
    const answer = (await (await client.request(`${stack.portal.url}${poll}`)).json()) as { next: string };
    const viaWallet = textOf(await (await client.follow(answer.next)).response!.text(), 'id-token-claims')!;

    const browser = new HttpClient({ 'accept-language': 'en' });
    const federated = await browser.follow(`${stack.rp.url}/login/institution`, `${stack.idp!.issuer}`, {
      method: 'POST',
    });
    const end = await signInAtInstitution(browser, federated.url, 'alice', stack.rp.redirectUri);
    const viaFederation = textOf(await (await browser.follow(end.url)).response!.text(), 'id-token-claims')!;

    const alice = await stack.platform.db.withTenant('demo', (sql) =>
      stack.identities.findByFederationSubject({ tenantId: 'demo', sql }, stack.idp!.issuer, 'dev-idp-alice'),
    );
    for (const claims of [viaWallet, viaFederation]) {
      expect(claims).toContain(alice!.internalIdentityId);
      for (const value of ['S-1001', 'alice@uni.example', 'alice.archer@uni.example', 'Alice', 'Archer'])
        expect(claims).toContain(value);
      // Per claim row ("<name><value>" once the table's tags are gone): random values (nonce, sid, hashes) may
      // hold any three letters, so the wallet's names are looked for only where a name claim stands.
      const rows = claims.split('\n');
      expect(rows).toContain('family_nameArcher');
      for (const row of ['family_nameDoe', 'given_nameAli']) expect(rows).not.toContain(row);
      expect(claims).not.toContain('ali@wallet.example');
    }
  });

  it('a credential of another person is refused at identity verification: claims_mismatch, in plain words', async () => {
    const bobs = {
      service_id: 'S-1002',
      eduperson_principal_name: 'bob@uni.example',
      given_name: 'Bob',
      family_name: 'Baker',
    };
    const { client, callback } = await walletThenInstitution(bobs, 'carol');
    expect(callback.searchParams.get('reason')).toBe('claims_mismatch');
    const html = await (await client.request(callback.href)).text();
    expect(textOf(html, 'main')).toContain('belongs to someone else than the institution account you signed in with');
  });
});
