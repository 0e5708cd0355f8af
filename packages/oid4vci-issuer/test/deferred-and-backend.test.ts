import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import { Bitstring } from '@digitalbazaar/bitstring';
import { createEmploymentPipeline, DEFERRED_VC, json, startBed, TENANT, type Bed } from './support.js';
import { startDeferringConnector, type TestConnector } from './connector.js';
import { createLibraryWallet } from './wallet.js';

/**
 * Issue 19 step 3: a backend offer (001 §4.2) with pre-seeded groups; a jwt_vc_json credential whose last claim
 * comes from a connector that answers later: the credential request is answered 202, the deferred endpoint keeps
 * the wallet waiting until the connector's callback completes the session, then issues; the wallet's notification
 * moves the session to OID4VCI_NOTIFICATION_RECEIPT. Driven by the @openid4vc/openid4vci wallet client.
 */
describe.each(DATABASE_KINDS)('deferred issuance, jwt_vc_json, notification, backend offers (%s)', (kind) => {
  let bed: Bed;
  let hr: TestConnector;
  beforeAll(async () => {
    hr = await startDeferringConnector('hr');
    bed = await startBed(kind, {
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

  it('issues a deferred VC-JWT once the connector has called back, and records the notification', async () => {
    const pipeline = await createEmploymentPipeline(bed);
    expect(pipeline.status, JSON.stringify(pipeline.body)).toBeLessThan(300);

    const offer = await json(`${bed.url}/api/oid4vci/v1/backend/credential/offers`, {
      method: 'POST',
      headers: admin(),
      body: {
        issuerId: bed.url,
        credentialConfigurationIds: [DEFERRED_VC],
        preAuthorizedCodeGrant: true,
        offerTtlSeconds: 600,
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
    const status = await json(`${bed.url}/api/oid4vci/v1/backend/credential/offers/${correlationId}`, {
      headers: admin(),
    });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      correlation_id: correlationId,
      offer_expired: false,
      session: { status: 'IN_PROGRESS' },
    });

    const wallet = createLibraryWallet();
    const credentialOffer = await wallet.client.resolveCredentialOffer(offer.body.credential_offer_uri as string);
    const issuerMetadata = await wallet.client.resolveIssuerMetadata(credentialOffer.credential_issuer);
    const dpopSigner = await wallet.newSigner();
    const token = await wallet.client.retrievePreAuthorizedCodeAccessTokenFromOffer({
      credentialOffer,
      issuerMetadata,
      dpop: { signer: dpopSigner },
    });
    const accessToken = token.accessTokenResponse.access_token;
    const dpop = () => ({ signer: dpopSigner, ...(token.dpop?.nonce ? { nonce: token.dpop.nonce } : {}) });
    const { c_nonce } = await wallet.client.requestNonce({ issuerMetadata });
    const holder = await wallet.newSigner();
    const proof = await wallet.client.createCredentialRequestJwtProof({
      issuerMetadata,
      credentialConfigurationId: DEFERRED_VC,
      signer: holder,
      nonce: c_nonce,
    });
    const first = await wallet.client.retrieveCredentials({
      issuerMetadata,
      credentialConfigurationId: DEFERRED_VC,
      proofs: { jwt: [proof.jwt] },
      accessToken,
      dpop: dpop(),
    });
    expect(first.response.status).toBe(202);
    const transactionId = first.credentialResponse.transaction_id!;
    expect(first.credentialResponse.interval).toBeGreaterThan(0);
    await bed.sessions.settled();
    expect((await bed.sessions.get(TENANT, correlationId))?.status).toBe('DEFERRED');

    // The connector was invoked with the seeded connector field and a callback URL.
    const invocation = hr.received.find((r) => r.data.correlation_id === correlationId)!;
    expect(invocation.data.connector_fields).toEqual({ employeeNo: 'E-7' });

    const pending = await wallet.client.retrieveDeferredCredentials({
      issuerMetadata,
      accessToken,
      transactionId,
      dpop: dpop(),
    });
    expect(pending.response.status).toBe(202);
    expect(pending.deferredCredentialResponse.transaction_id).toBe(transactionId);

    const callback = await fetch(invocation.data.callback_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        groups: [
          {
            contributorId: 'hr',
            phase: 'OID4VCI_DEFERRED',
            attributes: [{ path: 'employer', value: 'Analytical Engines Ltd' }],
          },
        ],
      }),
    });
    expect(callback.status).toBeLessThan(300);

    // The deferred response carries the credentials and a notification_id (OpenID4VCI 1.0 §9.2, §11.1).
    const done = await json(`${bed.url}/oid4vci/deferredCredential`, {
      method: 'POST',
      body: { transaction_id: transactionId },
      headers: await dpopHeaders(wallet, dpopSigner, `${bed.url}/oid4vci/deferredCredential`, accessToken),
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const credential = (done.body.credentials as { credential: string }[])[0]!.credential;
    const notificationId = done.body.notification_id as string;

    // Independently: jose with the key of the issuer's published key set.
    const keys = ((await json(`${bed.url}/.well-known/jwt-vc-issuer`)).body.jwks as { keys: JWK[] }).keys;
    const jwk = keys.find((k) => k.kid === decodeProtectedHeader(credential).kid)!;
    const { payload } = await jwtVerify(credential, await importJWK(jwk, 'ES256'), { issuer: bed.url });
    const vc = payload.vc as Record<string, unknown>;
    expect(vc.type).toEqual(['VerifiableCredential', 'EmployeeCredential']);
    expect(vc.credentialSubject).toMatchObject({ name: 'Ada Lovelace', employer: 'Analytical Engines Ltd' });
    expect((vc.credentialSubject as { id: string }).id).toBe(payload.sub);
    expect(vc.credentialStatus).toMatchObject({
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
    });
    expect(String((vc.credentialStatus as { statusListCredential: string }).statusListCredential)).toContain(
      `${bed.statusLists}/status-lists/`,
    );
    expect((payload.cnf as { jwk: JWK }).jwk.x).toBe(holder.publicJwk.x);
    // The entry, read independently: the BitstringStatusListCredential (signed by the same issuer key) decoded with
    // the W3C reference library (multibase `u` prefix removed): the credential's bit is not set.
    const entry = vc.credentialStatus as { statusListCredential: string; statusListIndex: string };
    const listToken = await (await fetch(entry.statusListCredential)).text();
    const list = await jwtVerify(
      listToken,
      await importJWK(
        keys.find((k) => k.kid === decodeProtectedHeader(listToken).kid)!,
        'ES256',
      ),
    );
    const listVc = (list.payload.vc ?? list.payload) as { credentialSubject: { encodedList: string; type: string } };
    expect(listVc.credentialSubject.type).toBe('BitstringStatusList');
    const bits = new Bitstring({
      buffer: await Bitstring.decodeBits({ encoded: listVc.credentialSubject.encodedList.replace(/^u/, '') }),
    });
    expect(bits.get(Number(entry.statusListIndex))).toBe(false);

    // The transaction is spent.
    const again = await json(`${bed.url}/oid4vci/deferredCredential`, {
      method: 'POST',
      body: { transaction_id: transactionId },
      headers: await dpopHeaders(wallet, dpopSigner, `${bed.url}/oid4vci/deferredCredential`, accessToken),
    });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_transaction_id');

    const notified = await wallet.client.sendNotification({
      issuerMetadata,
      notification: { notificationId, event: 'credential_accepted' },
      accessToken,
      dpop: dpop(),
    });
    expect(notified).toBeDefined();
    const after = await json(`${bed.url}/api/oid4vci/v1/backend/credential/offers/${correlationId}`, {
      headers: admin(),
    });
    expect(after.body).toMatchObject({ session: { status: 'ISSUED', phase: 'OID4VCI_NOTIFICATION_RECEIPT' } });
  });
});

/** Authorization and DPoP headers for a raw request with the wallet's token (a fresh proof for the URL). */
async function dpopHeaders(
  wallet: ReturnType<typeof createLibraryWallet>,
  signer: Awaited<ReturnType<ReturnType<typeof createLibraryWallet>['newSigner']>>,
  url: string,
  accessToken: string,
): Promise<Record<string, string>> {
  return { authorization: `DPoP ${accessToken}`, dpop: await wallet.dpopProof(signer, 'POST', url, accessToken) };
}
