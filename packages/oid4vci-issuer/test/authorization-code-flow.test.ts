import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, HttpClient } from '@tessera/platform/testing';
import { decodeJwt } from 'jose';
import { json, PID, startBed, WALLET_CLIENT, WALLET_REDIRECT, type Bed } from './support.js';
import { createLibraryWallet } from './wallet.js';

const CLAIMS = { given_name: 'Ada', family_name: 'Lovelace', birthdate: '1815-12-10', 'address.locality': 'London' };

/**
 * Issue 19 step 5: the authorization code flow. A backend offer with an issuer_state (contract A); the wallet's
 * authorization request carries it with authorization_details, the person signs in at the institutional provider,
 * the code is exchanged with PKCE and DPoP for the credential endpoint's token (contract B, sub = the person), and
 * the credential is issued with a proof whose iss is the wallet's client id.
 */
describe.each(DATABASE_KINDS)('authorization code flow (%s)', (kind) => {
  let bed: Bed;
  beforeAll(async () => {
    bed = await startBed(kind, { upstream: true });
  });
  afterAll(() => bed?.close());

  it('issues an SD-JWT VC after a login, with PKCE and DPoP', async () => {
    const offer = await json(`${bed.url}/api/oid4vci/v1/backend/credential/offers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bed.tokens.admin}` },
      body: {
        credentialConfigurationIds: [PID],
        preAuthorizedCodeGrant: false,
        preSeededGroups: [
          { contributorId: 'registry', attributes: Object.entries(CLAIMS).map(([path, value]) => ({ path, value })) },
        ],
      },
    });
    expect(offer.status, JSON.stringify(offer.body)).toBe(200);
    const wallet = createLibraryWallet();
    const credentialOffer = await wallet.client.resolveCredentialOffer(offer.body.credential_offer_uri as string);
    const issuerState = (credentialOffer.grants as Record<string, { issuer_state: string }>).authorization_code!
      .issuer_state;
    expect(typeof issuerState).toBe('string');

    // The authorization request (OpenID4VCI 1.0 §5.1), the login at the provider, the code at the redirect URI.
    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL(`${bed.tokenService}/authorize`);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: WALLET_CLIENT,
      redirect_uri: WALLET_REDIRECT,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 'wallet-state',
      issuer_state: issuerState,
      authorization_details: JSON.stringify([{ type: 'openid_credential', credential_configuration_id: PID }]),
    }))
      authorize.searchParams.set(k, v);
    const ua = new HttpClient();
    const page = await ua.follow(authorize.href, WALLET_REDIRECT);
    expect(page.response?.status).toBe(200);
    const html = await page.response!.text();
    const action = /<form[^>]*action="([^"]+)"/i.exec(html)?.[1] ?? new URL(page.url).pathname;
    const user = bed.idp!.users[0]!;
    const back = await ua.follow(new URL(action, page.url).href, WALLET_REDIRECT, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: user.username, password: user.password }).toString(),
    });
    const callback = new URL(back.url);
    expect(callback.searchParams.get('error')).toBeNull();
    const code = callback.searchParams.get('code')!;

    const dpop = await wallet.newSigner();
    const tokenUrl = `${bed.tokenService}/token`;
    const tokenRes = await fetch(tokenUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        dpop: await wallet.dpopProof(dpop, 'POST', tokenUrl, ''),
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: WALLET_REDIRECT,
        client_id: WALLET_CLIENT,
      }),
    });
    const token = (await tokenRes.json()) as Record<string, unknown>;
    expect(tokenRes.status, JSON.stringify(token)).toBe(200);
    expect(token.token_type).toBe('DPoP');
    const accessToken = token.access_token as string;
    expect(decodeJwt(accessToken).sub).not.toMatch(/^issuance:/);

    const { c_nonce } = (await json(`${bed.url}/oid4vci/nonce`, { method: 'POST' })).body as { c_nonce: string };
    const holder = await wallet.newSigner();
    const credentialUrl = `${bed.url}/oid4vci/credential`;
    const res = await json(credentialUrl, {
      method: 'POST',
      headers: {
        authorization: `DPoP ${accessToken}`,
        dpop: await wallet.dpopProof(dpop, 'POST', credentialUrl, accessToken),
      },
      body: {
        credential_identifier: PID,
        proofs: { jwt: [await wallet.proofJwt(holder, { aud: bed.url, nonce: c_nonce, iss: WALLET_CLIENT } as never)] },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const credential = (res.body.credentials as { credential: string }[])[0]!.credential;
    const disclosed = credential
      .split('~')
      .slice(1)
      .filter(Boolean)
      .map((d) => JSON.parse(Buffer.from(d, 'base64url').toString()) as unknown[]);
    expect(disclosed.map((d) => d[1])).toEqual(
      expect.arrayContaining(['given_name', 'family_name', 'birthdate', 'locality']),
    );
    expect(decodeJwt(credential.split('~')[0]!)).toMatchObject({ iss: bed.url, vct: 'urn:eu.tessera:pid:1' });
  });
});
