import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, HttpClient } from '@tessera/platform/testing';
import type { TokenServiceConfig } from '@tessera/token-service';
import { OpenID4VCIClientV1_0_15 } from '@sphereon/oid4vci-client';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { digest } from '@sd-jwt/crypto-nodejs';
import {
  calculateJwkThumbprint,
  decodeJwt,
  decodeProtectedHeader,
  importJWK,
  jwtVerify,
  type JWK,
  type JWTPayload,
} from 'jose';
import {
  createEmploymentPipeline,
  DEFERRED_VC,
  json,
  PID,
  startBed,
  TENANT,
  VC,
  WALLET_CLIENT,
  WALLET_REDIRECT,
  type Bed,
} from './support.js';
import { startDeferringConnector, type TestConnector } from './connector.js';
import { dpopOptions, newSphereonKey, requestCredential, type SphereonKey } from './sphereon-wallet.js';

/**
 * Issue 19, "two independent wallets": the second one is built on @sphereon/oid4vci-client (draft 15 of
 * OpenID4VCI, the latest the library speaks). The library resolves the offer and the metadata, asks the token
 * service for the token (tx_code, PKCE, DPoP), the nonce endpoint for the c_nonce, builds the jwt proof and the DPoP
 * proofs, and polls the deferred endpoint; the one place where draft 15 and 1.0 differ in these flows (`proof`
 * became `proofs`) is bridged in sphereon-wallet.ts. Its deferred and notification calls carry no DPoP proof (the
 * library sends a bearer token there), so that flow runs against an issuer with DPoP optional.
 */

const PID_CLAIMS = {
  given_name: 'Erika',
  family_name: 'Mustermann',
  birthdate: '1964-08-12',
  address: { locality: 'Berlin' },
};
const VC_CLAIMS = { name: 'Ada Lovelace', employer: 'Analytical Engines Ltd' };

describe.each(DATABASE_KINDS)(
  'Sphereon wallet: pre-authorized code with a PIN, authorization code, DPoP (%s)',
  (kind) => {
    let bed: Bed;
    beforeAll(async () => {
      bed = await startBed(kind, { upstream: true });
    });
    afterAll(() => bed?.close());

    /** A web application offer with a PIN; the wallet takes the link and the PIN, and a DPoP-bound token. */
    async function preAuthorizedToken(configurationId: string, claims: Record<string, unknown>) {
      const offer = await json(`${bed.url}/oid4vci/webapp/credential-offers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bed.tokens.admin}` },
        body: { credential_configuration_ids: [configurationId], credentialDataSupplierInput: claims, pinLength: 6 },
      });
      expect(offer.status, JSON.stringify(offer.body)).toBe(200);
      const client = await OpenID4VCIClientV1_0_15.fromURI({
        uri: offer.body.uri as string,
        retrieveServerMetadata: true,
      });
      expect(client.getIssuer()).toBe(bed.url);
      expect(client.endpointMetadata.token_endpoint).toBe(`${bed.tokenService}/token`);
      // The offer asks for a tx_code (OpenID4VCI 1.0 §4.1.1), which the library reads as a PIN to send.
      expect(client.credentialOffer?.userPinRequired).toBe(true);
      const dpop = await newSphereonKey();
      const token = await client.acquireAccessToken({
        pin: offer.body.userPin as string,
        createDPoPOpts: dpopOptions(dpop),
      });
      await expectDpopBound(token.access_token, token.token_type, dpop);
      return { client, dpop };
    }

    it('pre-authorized flow with a PIN and DPoP: an SD-JWT VC that @sd-jwt/sd-jwt-vc verifies', async () => {
      const { client, dpop } = await preAuthorizedToken(PID, PID_CLAIMS);
      const holder = await newSphereonKey();
      const { response } = await requestCredential(client, {
        credentialConfigurationId: PID,
        format: 'dc+sd-jwt',
        holder,
        dpop,
      });
      expect(response.origResponse.status, JSON.stringify(response.errorBody)).toBe(200);
      expect(typeof response.successBody?.notification_id).toBe('string');
      const credential = (response.successBody!.credentials![0] as { credential: string }).credential;
      const payload = await verifySdJwtVc(bed, credential);
      expect(payload).toMatchObject({ ...PID_CLAIMS, iss: bed.url, vct: 'urn:eu.tessera:pid:1' });
      expect(publicPart((payload.cnf as { jwk: JWK }).jwk)).toEqual(publicPart(holder.publicJwk));
      const status = (payload.status as { status_list: { idx: number; uri: string } }).status_list;
      expect(status.uri.startsWith(`${bed.statusLists}/status-lists/`)).toBe(true);
    });

    it('pre-authorized flow with a PIN and DPoP: a VC-JWT that jose verifies with the published key', async () => {
      const { client, dpop } = await preAuthorizedToken(VC, VC_CLAIMS);
      const holder = await newSphereonKey();
      const { response } = await requestCredential(client, {
        credentialConfigurationId: VC,
        format: 'jwt_vc_json',
        holder,
        dpop,
      });
      expect(response.origResponse.status, JSON.stringify(response.errorBody)).toBe(200);
      const credential = (response.successBody!.credentials![0] as { credential: string }).credential;
      const payload = await verifyVcJwt(bed, credential);
      const vc = payload.vc as Record<string, unknown>;
      expect(vc.type).toEqual(['VerifiableCredential', 'EmployeeCredential']);
      expect(vc.credentialSubject).toMatchObject(VC_CLAIMS);
      expect(vc.credentialStatus).toMatchObject({ type: 'BitstringStatusListEntry', statusPurpose: 'revocation' });
      expect((payload.cnf as { jwk: JWK }).jwk.x).toBe(holder.publicJwk.x);
    });

    it('authorization code flow: the library’s authorization request, PKCE and DPoP, an SD-JWT VC', async () => {
      const claims = {
        given_name: 'Ada',
        family_name: 'Lovelace',
        birthdate: '1815-12-10',
        'address.locality': 'London',
      };
      const offer = await json(`${bed.url}/api/oid4vci/v1/backend/credential/offers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bed.tokens.admin}` },
        body: {
          credentialConfigurationIds: [PID],
          preAuthorizedCodeGrant: false,
          preSeededGroups: [
            { contributorId: 'registry', attributes: Object.entries(claims).map(([path, value]) => ({ path, value })) },
          ],
        },
      });
      expect(offer.status, JSON.stringify(offer.body)).toBe(200);
      const client = await OpenID4VCIClientV1_0_15.fromURI({
        uri: offer.body.credential_offer_uri as string,
        retrieveServerMetadata: true,
        clientId: WALLET_CLIENT,
        // Given here: the library reads the redirect URI from the options it was created with.
        authorizationRequest: { redirectUri: WALLET_REDIRECT, clientId: WALLET_CLIENT },
      });
      const issuerState = client.credentialOffer?.issuerState;
      expect(typeof issuerState).toBe('string');

      // The authorization request as the library builds it (OpenID4VCI 1.0 §5.1.1, §5.1.3; RFC 7636).
      const authorizationUrl = await client.createAuthorizationRequestUrl();
      const params = new URL(authorizationUrl).searchParams;
      expect(authorizationUrl.startsWith(`${bed.tokenService}/authorize?`)).toBe(true);
      expect(params.get('issuer_state')).toBe(issuerState);
      expect(params.get('code_challenge_method')).toBe('S256');
      expect(params.get('redirect_uri')).toBe(WALLET_REDIRECT);
      expect(JSON.parse(params.get('authorization_details')!)).toEqual([
        expect.objectContaining({ type: 'openid_credential', credential_configuration_id: PID }),
      ]);

      // The person signs in at the institutional provider; the code comes back to the wallet's redirect URI.
      const ua = new HttpClient();
      const page = await ua.follow(authorizationUrl, WALLET_REDIRECT);
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
      expect(callback.searchParams.get('code')).toBeTruthy();

      // The library exchanges the code with its PKCE verifier and a DPoP proof.
      const dpop = await newSphereonKey();
      const token = await client.acquireAccessToken({
        authorizationResponse: back.url,
        redirectUri: WALLET_REDIRECT,
        clientId: WALLET_CLIENT,
        createDPoPOpts: dpopOptions(dpop),
      });
      await expectDpopBound(token.access_token, token.token_type, dpop);
      expect(decodeJwt(token.access_token).sub).not.toMatch(/^issuance:/);

      const holder = await newSphereonKey();
      const { response, proofJwt } = await requestCredential(client, {
        credentialConfigurationId: PID,
        format: 'dc+sd-jwt',
        holder,
        dpop,
        clientId: WALLET_CLIENT,
      });
      // §8.2.1.1: in this flow the proof names the wallet's client id as iss.
      expect(decodeJwt(proofJwt).iss).toBe(WALLET_CLIENT);
      expect(response.origResponse.status, JSON.stringify(response.errorBody)).toBe(200);
      const credential = (response.successBody!.credentials![0] as { credential: string }).credential;
      const payload = await verifySdJwtVc(bed, credential);
      expect(payload).toMatchObject({
        given_name: 'Ada',
        family_name: 'Lovelace',
        birthdate: '1815-12-10',
        address: { locality: 'London' },
        iss: bed.url,
      });
      expect(publicPart((payload.cnf as { jwk: JWK }).jwk)).toEqual(publicPart(holder.publicJwk));
    });

    it('the nonce endpoint answers the library’s request: a POST with an empty form body (§7.1)', async () => {
      const res = await fetch(`${bed.url}/oid4vci/nonce`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      });
      const body = (await res.json()) as { c_nonce?: unknown };
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(typeof body.c_nonce).toBe('string');
    });
  },
);

describe.each(DATABASE_KINDS)('Sphereon wallet: deferred issuance completed by a connector callback (%s)', (kind) => {
  let bed: Bed;
  let hr: TestConnector;
  beforeAll(async () => {
    hr = await startDeferringConnector('hr');
    bed = await startBed(kind, {
      // The library's deferred and notification requests carry a bearer token only: DPoP optional here.
      config: { dpopRequired: false },
      tokenService: { oid4vci: { requireDpop: false } as TokenServiceConfig['oid4vci'] },
      issuance: {
        connectors: [{ tenantId: TENANT, connectorId: 'hr', url: hr.url, secret: hr.secret }],
        connectorCalls: { allowPrivateOrigins: [hr.origin], retryBaseMs: 5, retryCapMs: 20 },
      },
    });
  });
  afterAll(async () => {
    await bed?.close();
    await hr?.close();
  });

  const admin = () => ({ authorization: `Bearer ${bed.tokens.admin}` });

  it('gets 202, polls while the connector works, receives the VC-JWT after the callback, and notifies', async () => {
    const pipeline = await createEmploymentPipeline(bed);
    expect(pipeline.status, JSON.stringify(pipeline.body)).toBeLessThan(300);
    const offer = await json(`${bed.url}/api/oid4vci/v1/backend/credential/offers`, {
      method: 'POST',
      headers: admin(),
      body: {
        credentialConfigurationIds: [DEFERRED_VC],
        preAuthorizedCodeGrant: true,
        pinLength: 4,
        preSeededGroups: [
          {
            contributorId: 'hr-seed',
            attributes: [{ path: 'name', value: 'Ada Lovelace' }],
            connectorFields: { employeeNo: 'E-7' },
          },
        ],
      },
    });
    expect(offer.status, JSON.stringify(offer.body)).toBe(200);
    const correlationId = offer.body.correlation_id as string;

    const client = await OpenID4VCIClientV1_0_15.fromURI({
      uri: offer.body.credential_offer_uri as string,
      retrieveServerMetadata: true,
    });
    expect(client.credentialOffer?.userPinRequired).toBe(true);
    const token = await client.acquireAccessToken({ pin: offer.body.user_pin as string });
    expect(token.token_type).toBe('Bearer');

    const holder = await newSphereonKey();
    const { requestClient, response } = await requestCredential(client, {
      credentialConfigurationId: DEFERRED_VC,
      format: 'jwt_vc_json',
      holder,
    });
    // §9.1 as the library reads it: 202, a transaction_id, an interval, no credentials.
    expect(response.origResponse.status, JSON.stringify(response.errorBody)).toBe(202);
    expect(requestClient.isDeferred()).toBe(true);
    const transactionId = response.successBody!.transaction_id!;
    await bed.sessions.settled();
    expect((await bed.sessions.get(TENANT, correlationId))?.status).toBe('DEFERRED');

    const bearerToken = token.access_token;
    const pending = await requestClient.acquireDeferredCredential({ transaction_id: transactionId }, { bearerToken });
    expect(pending.origResponse.status).toBe(202);
    expect(pending.successBody?.transaction_id).toBe(transactionId);

    const invocation = hr.received.find((r) => r.data.correlation_id === correlationId)!;
    expect(invocation.data.connector_fields).toEqual({ employeeNo: 'E-7' });
    const callback = await fetch(invocation.data.callback_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        groups: [
          {
            contributorId: 'hr',
            phase: 'OID4VCI_DEFERRED',
            attributes: [{ path: 'employer', value: VC_CLAIMS.employer }],
          },
        ],
      }),
    });
    expect(callback.status).toBeLessThan(300);

    const done = await requestClient.acquireDeferredCredential({ transaction_id: transactionId }, { bearerToken });
    expect(done.origResponse.status, JSON.stringify(done.errorBody)).toBe(200);
    const credential = (done.successBody!.credentials![0] as { credential: string }).credential;
    const payload = await verifyVcJwt(bed, credential);
    expect((payload.vc as { credentialSubject: unknown }).credentialSubject).toMatchObject(VC_CLAIMS);
    expect((payload.cnf as { jwk: JWK }).jwk.x).toBe(holder.publicJwk.x);

    const notified = await client.sendNotification(
      { notificationEndpoint: client.endpointMetadata.credentialIssuerMetadata!.notification_endpoint },
      { notification_id: done.successBody!.notification_id!, event: 'credential_accepted' },
      bearerToken,
    );
    expect(notified.error, JSON.stringify(notified.response)).toBe(false);
    const after = await json(`${bed.url}/api/oid4vci/v1/backend/credential/offers/${correlationId}`, {
      headers: admin(),
    });
    expect(after.body).toMatchObject({ session: { status: 'ISSUED', phase: 'OID4VCI_NOTIFICATION_RECEIPT' } });
  });
});

/** RFC 9449 §6: a DPoP token type, and the token's cnf.jkt is the thumbprint of the wallet's DPoP key. */
async function expectDpopBound(accessToken: string, tokenType: string | undefined, dpop: SphereonKey) {
  expect(tokenType).toBe('DPoP');
  expect((decodeJwt(accessToken).cnf as { jkt?: string }).jkt).toBe(await calculateJwkThumbprint(dpop.publicJwk));
}

const publicPart = (jwk: JWK) => ({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y });

/** Verified by @sd-jwt/sd-jwt-vc with keys only from the issuer's and the status-list role's published key sets. */
async function verifySdJwtVc(bed: Bed, credential: string): Promise<Record<string, unknown>> {
  const keys = ((await json(`${bed.url}/.well-known/jwt-vc-issuer`)).body.jwks as { keys: JWK[] }).keys;
  const statusKeys = ((await json(`${bed.statusLists}/.well-known/jwt-vc-issuer`)).body.jwks as { keys: JWK[] }).keys;
  expect(decodeProtectedHeader(credential.split('~')[0]!).typ).toBe('dc+sd-jwt');
  const verifier = new SDJwtVcInstance({
    hasher: digest,
    hashAlg: 'sha-256',
    verifier: async (data: string, signature: string) => {
      const { kid } = decodeProtectedHeader(`${data}.${signature}`);
      const jwk = [...keys, ...statusKeys].find((k) => k.kid === kid);
      if (!jwk) return false;
      await jwtVerify(`${data}.${signature}`, await importJWK(jwk, 'ES256'));
      return true;
    },
  });
  return (await verifier.verify(credential)).payload as Record<string, unknown>;
}

/** Verified by jose with the key of the issuer's published key set, iss = the credential issuer. */
async function verifyVcJwt(bed: Bed, credential: string): Promise<JWTPayload> {
  const keys = ((await json(`${bed.url}/.well-known/jwt-vc-issuer`)).body.jwks as { keys: JWK[] }).keys;
  const jwk = keys.find((k) => k.kid === decodeProtectedHeader(credential).kid)!;
  return (await jwtVerify(credential, await importJWK(jwk, 'ES256'), { issuer: bed.url })).payload;
}
