import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import {
  initiated,
  institutionalIdentity,
  institutionalUser,
  newWallet,
  portalRedirect,
  signInAtProvider,
  startIdvBed,
  unknownHolderSession,
  walletIdentity,
  type IdvBed,
} from './support/idv-bed.js';

/**
 * One person, one set of claims (issue 14 §1), on both engines with the real development provider: IDV compares the
 * wallet credential's identifying claims (the service claim and eduperson_principal_name) with the institution's
 * and refuses a binding that disagrees (`claims_mismatch`, strict by default); once bound, the tokens' claims are the
 * identity's (the institution's), the wallet's only filling what the identity lacks.
 */
describe.each(DATABASE_KINDS)('IDV compares the wallet with the institution (%s)', (kind) => {
  let bed: IdvBed;
  const users = ['alice', 'mallory'].map((name) => institutionalUser(name));
  /** alice's credential, with names of its own. */
  const alicesWallet = {
    service_id: 'S-alice',
    eduperson_principal_name: 'alice@uni.example',
    given_name: 'Ali',
    family_name: 'Doe',
  };

  beforeAll(async () => {
    // The default of the configuration: no `claimsMatch` given.
    bed = await startIdvBed(kind, users, {});
  });
  afterAll(async () => bed?.close());
  beforeEach(() => bed.clock.set(new Date()));

  it('the default is strict', () => {
    expect(bed.b.config.idv.claimsMatch).toBe('strict');
  });

  it('a credential naming another person than the institutional login: ERROR claims_mismatch, nothing built', async () => {
    const wallet = await newWallet(bed, alicesWallet);
    const sessionId = await unknownHolderSession(bed, wallet);
    const start = await initiated(bed, sessionId);
    const mallory = bed.user('mallory');
    const back = await bed.idv.callback(await signInAtProvider(bed, start.authorizationUrl, mallory));
    expect(back.location).toBe(portalRedirect(sessionId, { status: 'error', reason: 'claims_mismatch' }));
    expect((await bed.idv.status(sessionId)).body).toEqual({
      reconciliationStatus: 'ERROR',
      errorMessage: 'The credential in the wallet names another person than the institutional login.',
    });
    expect(await institutionalIdentity(bed, mallory)).toBeNull();
    expect(await walletIdentity(bed, wallet)).toBeNull();
    expect((await bed.calls.complete(sessionId)).statusCode).toBe(202);
  });

  it("the same person: bound; the completion carries the institution's claims, not the wallet's", async () => {
    const wallet = await newWallet(bed, alicesWallet);
    const sessionId = await unknownHolderSession(bed, wallet);
    const start = await initiated(bed, sessionId);
    const alice = bed.user('alice');
    const back = await bed.idv.callback(await signInAtProvider(bed, start.authorizationUrl, alice));
    expect(back.location).toBe(portalRedirect(sessionId, { status: 'success' }));
    const institution = alice.claims;
    const expected = {
      service_id: institution.service_id,
      eduperson_principal_name: institution.eduperson_principal_name,
      email: institution.email,
      given_name: institution.given_name,
      family_name: institution.family_name,
    };
    const done = await bed.calls.complete(sessionId);
    expect(done.body.claims).toMatchObject(expected);

    // The next login through the binding says the same.
    const { sessionId: next, requestUri } = await bed.calls.create();
    expect((await wallet.respond(requestUri)).status).toBe(200);
    const again = await bed.calls.complete(next);
    expect(again.body).toMatchObject({ claimSource: 'CANONICAL_BINDING', claims: expected });
  });
});
