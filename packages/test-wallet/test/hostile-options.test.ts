import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactDecrypt, decodeJwt, decodeProtectedHeader, importJWK } from 'jose';
import { createTestIssuer, type TestIssuer } from '../src/issuer/create-test-issuer.js';
import { createTestWallet } from '../src/wallet/create-test-wallet.js';
import { decodeSdJwtPresentation, sha256Base64Url } from './support/decode-presentation.js';
import { ALICE, jwtVcQuery, queryOf, sdJwtQuery } from './support/queries.js';
import type { VerifierSession } from './support/start-test-verifier.js';
import { createWalletFixture, type WalletFixture } from './support/wallet-fixture.js';
import type { RespondOptions } from '../src/wallet/respond-options.js';

const REQUESTED = ['service_id', 'eduperson_principal_name', 'email'];

describe('hostile variants change what is posted, and only that', () => {
  let fixture: WalletFixture;

  beforeAll(async () => {
    fixture = await createWalletFixture();
  });
  afterAll(() => fixture.close());

  async function answerSdJwt(options: RespondOptions, responseMode: 'direct_post' | 'direct_post.jwt' = 'direct_post') {
    const session = await fixture.verifier.createSession({
      prefix: 'x509_hash',
      responseMode,
      dcqlQuery: queryOf(sdJwtQuery('identity', REQUESTED)),
    });
    const result = await fixture.wallet.respond(session.link, options);
    return { session, result, decoded: decodeSdJwtPresentation(Object.values(result.posted.vpToken)[0]![0]!) };
  }

  async function answerJwtVc(options: RespondOptions) {
    const session = await fixture.verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post',
      dcqlQuery: queryOf(jwtVcQuery('identity', REQUESTED)),
    });
    const result = await fixture.wallet.respond(session.link, options);
    return { session, result, presentation: result.posted.vpToken['identity']![0]! };
  }

  function rejected(session: VerifierSession, reason: RegExp): void {
    expect(session.outcome?.accepted).toBe(false);
    expect(session.outcome?.error).toMatch(reason);
  }

  it('wrongNonce: KB-JWT nonce differs from the request nonce, all else intact', async () => {
    const { session, result, decoded } = await answerSdJwt({ wrongNonce: true });
    expect(decoded.keyBinding?.payload['nonce']).not.toBe(session.nonce);
    expect(decoded.keyBinding?.payload['aud']).toBe(session.clientId);
    expect(result.status).toBe(400);
    rejected(session, /nonce/i);
  });

  it('wrongNonce on jwt_vc_json: the VP JWT nonce differs', async () => {
    const { session, presentation } = await answerJwtVc({ wrongNonce: true });
    expect(decodeJwt(presentation)['nonce']).not.toBe(session.nonce);
    rejected(session, /nonce/i);
  });

  it('wrongAudience: KB-JWT aud is not the client_id', async () => {
    const { session, decoded } = await answerSdJwt({ wrongAudience: true });
    expect(decoded.keyBinding?.payload['aud']).toBe('https://wrong-audience.invalid');
    expect(decoded.keyBinding?.payload['nonce']).toBe(session.nonce);
    rejected(session, /aud/);
  });

  it('wrongAudience on jwt_vc_json: the VP JWT aud is not the client_id', async () => {
    const { session, presentation } = await answerJwtVc({ wrongAudience: true });
    expect(decodeJwt(presentation).aud).toBe('https://wrong-audience.invalid');
    rejected(session, /aud/);
  });

  it('tamperDisclosure: one Disclosure no longer matches any digest, while sd_hash covers what is sent', async () => {
    const { session, decoded } = await answerSdJwt({ tamperDisclosure: 'email' });
    const email = decoded.disclosures.find((disclosure) => disclosure.name === 'email')!;
    expect(email.value).toBe(`${ALICE.email}-tampered`);
    expect(decoded.digests).not.toContain(email.digest);
    expect(decoded.disclosures.filter((disclosure) => decoded.digests.includes(disclosure.digest))).toHaveLength(
      REQUESTED.length - 1,
    );
    expect(decoded.keyBinding?.payload['sd_hash']).toBe(sha256Base64Url(decoded.withoutKeyBinding));
    rejected(session, /not referenced/);
  });

  it('tamperDisclosure on jwt_vc_json: a credentialSubject value changes under the issuer signature', async () => {
    const { session, presentation } = await answerJwtVc({ tamperDisclosure: 'email' });
    const [vc] = (decodeJwt(presentation)['vp'] as { verifiableCredential: string[] }).verifiableCredential;
    expect((decodeJwt(vc!)['vc'] as { credentialSubject: { email: string } }).credentialSubject.email).toBe(
      `${ALICE.email}-tampered`,
    );
    rejected(session, /signature/);
  });

  it('extraUnreferencedDisclosure: one more Disclosure, referenced by no digest', async () => {
    const { session, decoded } = await answerSdJwt({ extraUnreferencedDisclosure: true });
    expect(decoded.disclosures).toHaveLength(REQUESTED.length + 1);
    const extra = decoded.disclosures.find((disclosure) => disclosure.name === 'unreferenced_claim')!;
    expect(decoded.digests).not.toContain(extra.digest);
    rejected(session, /not referenced/);
  });

  it('duplicateDisclosure: the same Disclosure twice', async () => {
    const { session, decoded } = await answerSdJwt({ duplicateDisclosure: true });
    expect(decoded.disclosures).toHaveLength(REQUESTED.length + 1);
    expect(decoded.disclosures[0]!.encoded).toBe(decoded.disclosures.at(-1)!.encoded);
    rejected(session, /twice/);
  });

  it('omitKeyBinding: the SD-JWT ends with ~ and has no KB-JWT', async () => {
    const { session, result, decoded } = await answerSdJwt({ omitKeyBinding: true });
    expect(result.posted.vpToken['identity']![0]!.endsWith('~')).toBe(true);
    expect(decoded.keyBinding).toBeUndefined();
    rejected(session, /key binding JWT missing/);
  });

  it('omitKeyBinding on jwt_vc_json: the bare credential is sent without a VP', async () => {
    const { session, presentation } = await answerJwtVc({ omitKeyBinding: true });
    expect(decodeJwt(presentation)).toHaveProperty('vc');
    expect(decodeJwt(presentation)).not.toHaveProperty('vp');
    expect(session.outcome?.accepted).toBe(false);
  });

  it('dropClaim: the requested claim is withheld, the others are disclosed', async () => {
    const { session, decoded } = await answerSdJwt({ dropClaim: 'eduperson_principal_name' });
    expect(decoded.disclosures.map((disclosure) => disclosure.name).sort()).toEqual(['email', 'service_id']);
    rejected(session, /do not satisfy the DCQL query/);
  });

  it('credentialQueryId: the presentation is posted under an unknown id', async () => {
    const { session, result } = await answerSdJwt({ credentialQueryId: 'unknown-query' });
    expect(Object.keys(result.posted.vpToken)).toEqual(['unknown-query']);
    rejected(session, /not found in the dcql query/);
  });

  it('omitCredentialQuery: one required query id is missing', async () => {
    const session = await fixture.verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post',
      dcqlQuery: queryOf(sdJwtQuery('sd', ['email']), jwtVcQuery('w3c', ['email'])),
    });
    const result = await fixture.wallet.respond(session.link, { omitCredentialQuery: 'w3c' });
    expect(Object.keys(result.posted.vpToken)).toEqual(['sd']);
    rejected(session, /do not satisfy the DCQL query/);
  });

  it('kbIatOffsetSeconds: the KB-JWT iat moves by the offset', async () => {
    const { session, decoded } = await answerSdJwt({ kbIatOffsetSeconds: -3600 });
    const iat = decoded.keyBinding?.payload['iat'] as number;
    expect(Math.abs(iat - (Date.now() / 1000 - 3600))).toBeLessThan(60);
    rejected(session, /iat/);
  });

  it('keyBindingTyp and wrongSdHash: header typ and sd_hash as asked', async () => {
    const typ = await answerSdJwt({ keyBindingTyp: 'JWT' });
    expect(typ.decoded.keyBinding?.header['typ']).toBe('JWT');
    rejected(typ.session, /typ/);

    const hash = await answerSdJwt({ wrongSdHash: true });
    expect(hash.decoded.keyBinding?.payload['sd_hash']).not.toBe(sha256Base64Url(hash.decoded.withoutKeyBinding));
    rejected(hash.session, /sd_hash/);
  });

  it('wrongHolderKey: the KB-JWT is signed by a key other than cnf', async () => {
    const { session, decoded } = await answerSdJwt({ wrongHolderKey: true });
    expect(decoded.keyBinding?.payload['nonce']).toBe(session.nonce);
    expect(session.outcome?.accepted).toBe(false);
  });

  it('stripIssuerSignature: the issuer JWT is alg none with no signature', async () => {
    const { session, result, decoded } = await answerSdJwt({ stripIssuerSignature: true });
    expect(decoded.issuerHeader['alg']).toBe('none');
    expect(result.posted.vpToken['identity']![0]!.split('~')[0]!.endsWith('.')).toBe(true);
    rejected(session, /alg or typ/);
  });

  it('hostileOnly: with two presentations only the named one gets the wrong nonce', async () => {
    const session = await fixture.verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post',
      dcqlQuery: queryOf(sdJwtQuery('sd', ['email']), jwtVcQuery('w3c', ['email'])),
    });
    const result = await fixture.wallet.respond(session.link, { wrongNonce: true, hostileOnly: 'w3c' });
    expect(decodeSdJwtPresentation(result.posted.vpToken['sd']![0]!).keyBinding?.payload['nonce']).toBe(session.nonce);
    expect(decodeJwt(result.posted.vpToken['w3c']![0]!)['nonce']).not.toBe(session.nonce);
    rejected(session, /nonce/i);
  });

  it('overrideState: the posted state is the given one', async () => {
    const { session, result } = await answerSdJwt({ overrideState: 'not-the-state' });
    expect(result.posted.form['state']).toBe('not-the-state');
    expect(session.posts[0]!['state']).toBe('not-the-state');
    expect(session.outcome?.accepted).toBe(false);
  });

  it('a hostile option also applies inside an encrypted direct_post.jwt response', async () => {
    const { session } = await answerSdJwt({ wrongNonce: true }, 'direct_post.jwt');
    const { plaintext } = await compactDecrypt(
      session.posts[0]!['response']!,
      await importJWK(fixture.verifier.keys.encryptionPrivateJwk, 'ECDH-ES'),
    );
    const { vp_token: vpToken } = JSON.parse(new TextDecoder().decode(plaintext)) as {
      vp_token: Record<string, string[]>;
    };
    expect(decodeSdJwtPresentation(vpToken['identity']![0]!).keyBinding?.payload['nonce']).not.toBe(session.nonce);
    rejected(session, /nonce/i);
  });

  it('refuses SD-JWT-only variants when no SD-JWT VC is being presented', async () => {
    const session = await fixture.verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post',
      dcqlQuery: queryOf(jwtVcQuery('identity', ['email'])),
    });
    await expect(fixture.wallet.respond(session.link, { extraUnreferencedDisclosure: true })).rejects.toMatchObject({
      code: 'invalid_option',
    });
    expect(session.posts).toEqual([]);
  });
});

describe('replay, reuse and foreign credentials', () => {
  let fixture: WalletFixture;
  let untrusted: TestIssuer;

  beforeAll(async () => {
    fixture = await createWalletFixture();
    untrusted = await createTestIssuer({ statusBaseUrl: fixture.issuer.statusBaseUrl! });
  });
  afterAll(() => fixture.close());

  it('replayFrom: re-posts a captured vp_token unchanged to a new session, with the new state', async () => {
    const dcqlQuery = queryOf(sdJwtQuery('identity', ['email']));
    const first = await fixture.verifier.createSession({ prefix: 'x509_hash', responseMode: 'direct_post', dcqlQuery });
    await fixture.wallet.respond(first.link);
    expect(first.outcome?.accepted).toBe(true);
    const captured = fixture.wallet.captureLastResponse()!;

    const second = await fixture.verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post',
      dcqlQuery,
    });
    const result = await fixture.wallet.respond(second.link, { replayFrom: captured });
    expect(result.posted.vpToken).toEqual(captured.vpToken);
    expect(second.posts[0]!['vp_token']).toBe(first.posts[0]!['vp_token']);
    expect(second.posts[0]!['state']).toBe(second.state);
    expect(second.outcome?.accepted).toBe(false);
  });

  it('replayFrom also takes a bare vp_token object', async () => {
    const dcqlQuery = queryOf(sdJwtQuery('identity', ['email']));
    const first = await fixture.verifier.createSession({ prefix: 'x509_hash', responseMode: 'direct_post', dcqlQuery });
    await fixture.wallet.respond(first.link);
    const second = await fixture.verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post',
      dcqlQuery,
    });
    const vpToken = JSON.parse(first.posts[0]!['vp_token']!) as Record<string, string[]>;
    await fixture.wallet.respond(second.link, { replayFrom: vpToken });
    expect(JSON.parse(second.posts[0]!['vp_token']!)).toEqual(vpToken);
  });

  it('resubmitLastResponse: posts the identical form a second time to the same response_uri', async () => {
    const session = await fixture.verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post.jwt',
      dcqlQuery: queryOf(sdJwtQuery('identity', ['email'])),
    });
    await fixture.wallet.respond(session.link);
    const again = await fixture.wallet.resubmitLastResponse();
    expect(session.posts).toHaveLength(2);
    expect(session.posts[1]).toEqual(session.posts[0]);
    expect(again.status).toBe(400);
  });

  it('useCredential: presents a credential from an untrusted issuer in place of the DCQL choice', async () => {
    const foreign = await untrusted.issueSdJwtVc({
      holderPublicJwk: fixture.wallet.holderJwk,
      vct: 'urn:tessera:credential:identity:1',
      claims: ALICE,
    });
    const session = await fixture.verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post',
      dcqlQuery: queryOf(sdJwtQuery('identity', ['email'])),
    });
    const result = await fixture.wallet.respond(session.link, { useCredential: foreign });
    const decoded = decodeSdJwtPresentation(result.posted.vpToken['identity']![0]!);
    expect(decoded.issuerPayload['iss']).toBe(untrusted.issuerId);
    expect(decoded.disclosures.map((disclosure) => disclosure.name)).toEqual(['email']);
    expect(decoded.keyBinding?.payload['nonce']).toBe(session.nonce);
    expect(session.outcome?.error).toBe('issuer is not trusted');
  });

  it('useCredential: presents a revoked credential of the trusted issuer', async () => {
    const wallet = await createTestWallet();
    const revoked = await fixture.issuer.issueJwtVc({
      holderDid: wallet.holderDid,
      type: 'TesseraIdentityCredential',
      claims: ALICE,
    });
    await fixture.issuer.revoke('jwt_vc_json', revoked.statusIndex!);
    const session = await fixture.verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post',
      dcqlQuery: queryOf(jwtVcQuery('identity', ['email'])),
    });
    const result = await wallet.respond(session.link, { useCredential: revoked });
    const [vc] = (decodeJwt(result.posted.vpToken['identity']![0]!)['vp'] as { verifiableCredential: string[] })
      .verifiableCredential;
    expect(vc).toBe(revoked.raw);
    expect(decodeProtectedHeader(result.posted.vpToken['identity']![0]!).kid).toBe(`${wallet.holderDid}#0`);
    expect(session.outcome?.error).toBe('credential status: revocation');
  });

  it('resubmitLastResponse before any response is refused', async () => {
    const wallet = await createTestWallet();
    await expect(wallet.resubmitLastResponse()).rejects.toMatchObject({ code: 'nothing_captured' });
  });
});
