import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { digest } from '@sd-jwt/crypto-nodejs';
import { decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import { json, PID, startBed, type Bed } from './support.js';
import { createLibraryWallet } from './wallet.js';

const CLAIMS = {
  given_name: 'Erika',
  family_name: 'Mustermann',
  birthdate: '1964-08-12',
  address: { locality: 'Berlin' },
  nationality: 'DE',
};

/**
 * Issue 19 step 2: the pre-authorized code flow with a PIN, end to end, driven by the wallet client of
 * @openid4vc/openid4vci through the real token service with DPoP; the SD-JWT VC verified by @sd-jwt/sd-jwt-vc.
 */
describe.each(DATABASE_KINDS)('pre-authorized flow with a PIN and DPoP, dc+sd-jwt (%s)', (kind) => {
  let bed: Bed;
  beforeAll(async () => {
    bed = await startBed(kind);
  });
  afterAll(() => bed?.close());

  it('issues an SD-JWT VC bound to the proof key, with a status entry, that an independent verifier accepts', async () => {
    const offer = await json(`${bed.url}/oid4vci/webapp/credential-offers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bed.tokens.admin}` },
      body: { credential_configuration_ids: [PID], credentialDataSupplierInput: CLAIMS, pinLength: 6 },
    });
    expect(offer.status).toBe(200);

    const wallet = createLibraryWallet();
    const credentialOffer = await wallet.client.resolveCredentialOffer(offer.body.uri as string);
    const issuerMetadata = await wallet.client.resolveIssuerMetadata(credentialOffer.credential_issuer);
    expect(issuerMetadata.authorizationServers[0]!.issuer).toBe(bed.tokenService);

    const dpopSigner = await wallet.newSigner();
    const token = await wallet.client.retrievePreAuthorizedCodeAccessTokenFromOffer({
      credentialOffer,
      issuerMetadata,
      txCode: offer.body.userPin as string,
      dpop: { signer: dpopSigner },
    });
    expect(token.accessTokenResponse.token_type).toBe('DPoP');

    const { c_nonce } = await wallet.client.requestNonce({ issuerMetadata });
    const holder = await wallet.newSigner();
    const proof = await wallet.client.createCredentialRequestJwtProof({
      issuerMetadata,
      credentialConfigurationId: PID,
      signer: holder,
      nonce: c_nonce,
    });
    const response = await wallet.client.retrieveCredentials({
      issuerMetadata,
      credentialConfigurationId: PID,
      proofs: { jwt: [proof.jwt] },
      accessToken: token.accessTokenResponse.access_token,
      dpop: { signer: dpopSigner, ...(token.dpop?.nonce ? { nonce: token.dpop.nonce } : {}) },
    });
    const body = response.credentialResponse;
    expect(typeof body.notification_id).toBe('string');
    expect(body.credentials).toHaveLength(1);
    const credential = (body.credentials![0] as { credential: string }).credential;

    // The issuer's keys, from its JWT VC Issuer Metadata.
    const published = await json(`${bed.url}/.well-known/jwt-vc-issuer`);
    expect(published.body.issuer).toBe(bed.url);
    const keys = (published.body.jwks as { keys: JWK[] }).keys;
    const header = decodeProtectedHeader(credential.split('~')[0]!);
    expect(header.typ).toBe('dc+sd-jwt');
    expect(keys.some((k) => k.kid === header.kid)).toBe(true);
    // The status list token is signed by the status-list issuer's key, published by its role.
    const statusKeys = ((await json(`${bed.statusLists}/.well-known/jwt-vc-issuer`)).body.jwks as { keys: JWK[] }).keys;

    const verifier = new SDJwtVcInstance({
      hasher: digest,
      hashAlg: 'sha-256',
      // Keys only from the two published key sets, chosen by kid.
      verifier: async (data: string, signature: string) => {
        const { kid } = decodeProtectedHeader(`${data}.${signature}`);
        const jwk = [...keys, ...statusKeys].find((k) => k.kid === kid);
        if (!jwk) return false;
        await jwtVerify(`${data}.${signature}`, await importJWK(jwk, 'ES256'));
        return true;
      },
    });
    const verified = await verifier.verify(credential);
    const payload = verified.payload as Record<string, unknown>;
    expect(payload).toMatchObject({ ...CLAIMS, iss: bed.url, vct: 'urn:eu.tessera:pid:1' });
    expect((payload.cnf as { jwk: JWK }).jwk).toEqual({
      kty: holder.publicJwk.kty,
      crv: holder.publicJwk.crv,
      x: holder.publicJwk.x,
      y: holder.publicJwk.y,
    });
    expect(payload.exp as number).toBeGreaterThan(payload.iat as number);
    const status = (payload.status as { status_list: { idx: number; uri: string } }).status_list;
    expect(Number.isInteger(status.idx)).toBe(true);
    expect(status.uri.startsWith(`${bed.statusLists}/status-lists/`)).toBe(true);
    // Every configured claim is selectively disclosable: five disclosures, none of the values in the signed part.
    expect(credential.split('~').filter(Boolean)).toHaveLength(6);
    const signedPart = Buffer.from(credential.split('~')[0]!.split('.')[1]!, 'base64url').toString('utf8');
    expect(signedPart).not.toContain('Mustermann');
    expect(signedPart).not.toContain('Berlin');
  });
});
