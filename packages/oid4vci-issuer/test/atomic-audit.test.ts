import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, refuseAuditStaging } from '@tessera/platform/testing';
import { CREATE_NONCE, CREATE_OFFER } from '../src/commands/ids.js';
import { createEmploymentPipeline, DEFERRED_VC, json, PID, startBed, TENANT, type Bed } from './support.js';
import { startDeferringConnector, type TestConnector } from './connector.js';
import { createLibraryWallet, type LibraryWallet } from './wallet.js';

type Signer = Awaited<ReturnType<LibraryWallet['newSigner']>>;

/**
 * Issue 13 §7 on the issuer side: every OpenID4VCI command that writes commits its change, the changes it makes in
 * the pipeline and the token service, and every audit event together. The database refuses to stage one command's
 * event (as when it goes away at that moment): the request is answered 503 and nothing of it stays (no session,
 * grant or offer; the proof's nonce still live; the deferred transaction still open; no notification recorded), so
 * that the wallet's retry of the very same request succeeds.
 */
describe.each(DATABASE_KINDS)('OpenID4VCI issuer writes commit with their audit events (%s)', (kind) => {
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
  const count = async (table: string) =>
    (
      await bed.t.platform.db.withTenant(TENANT, (sql) =>
        sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`),
      )
    ).rows[0]!.n;
  const counts = async () => ({
    sessions: await count('issuance_sessions'),
    grants: await count('oauth_credential_grants'),
    offers: await count('oid4vci_offers'),
    nonces: await count('oid4vci_nonces'),
    transactions: await count('oid4vci_transactions'),
    issuances: await count('oid4vci_issuances'),
  });
  /** Runs `request` with the staging of `commandId`'s events refused, then lifts the refusal. */
  const refusing = async <T>(commandId: string, request: () => Promise<T>): Promise<T> => {
    const lift = await refuseAuditStaging(bed.t.platform.db, commandId);
    try {
      return await request();
    } finally {
      await lift();
    }
  };
  const post = async (path: string, wallet: LibraryWallet, signer: Signer, token: string, body: unknown) =>
    json(`${bed.url}${path}`, {
      method: 'POST',
      body,
      headers: {
        authorization: `DPoP ${token}`,
        dpop: await wallet.dpopProof(signer, 'POST', `${bed.url}${path}`, token),
      },
    });

  /** An offer (refused once at the offer's own event, once at the grant's, joined), then its token and a nonce. */
  async function offerTokenAndNonce(configurationId: string, offerBody: Record<string, unknown>) {
    const before = await counts();
    const create = () =>
      json(`${bed.url}/oid4vci/webapp/credential-offers`, { method: 'POST', headers: admin(), body: offerBody });
    for (const refused of [CREATE_OFFER, 'token-service.credential-grants.create-pre-authorized-code']) {
      const failed = await refusing(refused, create);
      expect(failed.status, refused).toBe(503);
      expect(failed.headers.get('retry-after')).not.toBeNull();
      // Neither the pipeline session nor the token service's grant nor the offer stayed behind.
      expect(await counts()).toEqual(before);
    }
    const offer = await create();
    expect(offer.status, JSON.stringify(offer.body)).toBe(200);
    expect(await counts()).toMatchObject({
      sessions: before.sessions + 1,
      grants: before.grants + 1,
      offers: before.offers + 1,
    });

    const wallet = createLibraryWallet();
    const credentialOffer = await wallet.client.resolveCredentialOffer(offer.body.uri as string);
    const issuerMetadata = await wallet.client.resolveIssuerMetadata(credentialOffer.credential_issuer);
    const dpopSigner = await wallet.newSigner();
    const token = await wallet.client.retrievePreAuthorizedCodeAccessTokenFromOffer({
      credentialOffer,
      issuerMetadata,
      dpop: { signer: dpopSigner },
    });
    const accessToken = token.accessTokenResponse.access_token;

    const nonces = await count('oid4vci_nonces');
    const refusedNonce = await refusing(CREATE_NONCE, () =>
      json(`${bed.url}/oid4vci/nonce`, { method: 'POST', body: {} }),
    );
    expect(refusedNonce.status).toBe(503);
    expect(await count('oid4vci_nonces')).toBe(nonces);
    const nonce = await json(`${bed.url}/oid4vci/nonce`, { method: 'POST', body: {} });
    expect(nonce.status).toBe(200);
    const holder = await wallet.newSigner();
    const proof = await wallet.proofJwt(holder, { aud: bed.url, nonce: nonce.body.c_nonce as string });
    const request = { credential_configuration_id: configurationId, proofs: { jwt: [proof] } };
    return { wallet, dpopSigner, accessToken, request };
  }

  it('an immediate issuance: offer, nonce and credential request each leave nothing when refused', async () => {
    const { wallet, dpopSigner, accessToken, request } = await offerTokenAndNonce(PID, {
      credential_configuration_ids: [PID],
      credentialDataSupplierInput: {
        given_name: 'Erika',
        family_name: 'Mustermann',
        birthdate: '1964-08-12',
        address: { locality: 'Berlin' },
      },
    });
    const before = await counts();
    // The session's move to ISSUED is refused: no issuance recorded, the nonce not spent.
    const refused = await refusing('issuance.pipeline.mark-issued', () =>
      post('/oid4vci/credential', wallet, dpopSigner, accessToken, request),
    );
    expect(refused.status, JSON.stringify(refused.body)).toBe(503);
    expect(await counts()).toEqual(before);
    // The wallet retries the same request, same proof and nonce: issued.
    const issued = await post('/oid4vci/credential', wallet, dpopSigner, accessToken, request);
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    expect(issued.body.credentials).toHaveLength(1);
    expect(await counts()).toMatchObject({ nonces: before.nonces - 1, issuances: before.issuances + 1 });
    // The nonce is spent now.
    const replay = await post('/oid4vci/credential', wallet, dpopSigner, accessToken, request);
    expect(replay.body.error).toBe('invalid_nonce');
  });

  it('a deferred issuance: the 202, the deferred credential and the notification each leave nothing when refused', async () => {
    const pipeline = await createEmploymentPipeline(bed);
    expect(pipeline.status, JSON.stringify(pipeline.body)).toBeLessThan(300);
    const { wallet, dpopSigner, accessToken, request } = await offerTokenAndNonce(DEFERRED_VC, {
      credential_configuration_ids: [DEFERRED_VC],
      credentialDataSupplierInput: { name: 'Ada Lovelace', employeeNo: 'E-7' },
    });

    // 202 refused at the session's move to DEFERRED: no transaction, the nonce live; the retry gets its 202.
    let before = await counts();
    const refused = await refusing('issuance.pipeline.mark-deferred', () =>
      post('/oid4vci/credential', wallet, dpopSigner, accessToken, request),
    );
    expect(refused.status, JSON.stringify(refused.body)).toBe(503);
    expect(await counts()).toEqual(before);
    const deferred = await post('/oid4vci/credential', wallet, dpopSigner, accessToken, request);
    expect(deferred.status, JSON.stringify(deferred.body)).toBe(202);
    const transactionId = deferred.body.transaction_id as string;
    await bed.sessions.settled();

    // The connector calls back with the missing claim.
    const invocation = hr.received.at(-1)!;
    const callback = await fetch(invocation.data.callback_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        groups: [{ contributorId: 'hr', phase: 'OID4VCI_DEFERRED', attributes: [{ path: 'employer', value: 'AE' }] }],
      }),
    });
    expect(callback.status).toBeLessThan(300);

    // The deferred credential refused at the move to ISSUED: the transaction stays open for the retry.
    before = await counts();
    const deferredRequest = { transaction_id: transactionId };
    const refusedDeferred = await refusing('issuance.pipeline.mark-issued', () =>
      post('/oid4vci/deferredCredential', wallet, dpopSigner, accessToken, deferredRequest),
    );
    expect(refusedDeferred.status, JSON.stringify(refusedDeferred.body)).toBe(503);
    expect(await counts()).toEqual(before);
    const done = await post('/oid4vci/deferredCredential', wallet, dpopSigner, accessToken, deferredRequest);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const notificationId = done.body.notification_id as string;

    // The notification refused at the session's receipt: the event is not recorded, the retry records it.
    const lastEvent = async () =>
      (
        await bed.t.platform.db.withTenant(TENANT, (sql) =>
          sql.query<{ e: string | null }>(
            'SELECT last_event AS e FROM oid4vci_issuances ORDER BY issued_at DESC LIMIT 1',
          ),
        )
      ).rows[0]!.e;
    const notification = { notification_id: notificationId, event: 'credential_accepted' };
    const refusedNotice = await refusing('issuance.pipeline.record-notification', () =>
      post('/oid4vci/notification', wallet, dpopSigner, accessToken, notification),
    );
    expect(refusedNotice.status, JSON.stringify(refusedNotice.body)).toBe(503);
    expect(await lastEvent()).toBeNull();
    const notified = await post('/oid4vci/notification', wallet, dpopSigner, accessToken, notification);
    expect(notified.status).toBe(204);
    expect(await lastEvent()).toBe('credential_accepted');
    await bed.sessions.settled();
    const correlationId = (invocation.data as { correlation_id: string }).correlation_id;
    expect((await bed.sessions.get(TENANT, correlationId))?.phase).toBe('OID4VCI_NOTIFICATION_RECEIPT');
    // Every event of the flow is chained; nothing is left staged.
    expect(await count('audit_pending')).toBe(0);
    expect(await bed.t.platform.audit.verify(TENANT)).toMatchObject({ ok: true });
  });
});
