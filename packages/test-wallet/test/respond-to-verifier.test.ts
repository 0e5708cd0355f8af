import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { compactDecrypt, decodeJwt, decodeProtectedHeader, importJWK } from 'jose';
import { getGlobalConfig } from '@openid4vc/utils';
import { createTestWallet } from '../src/wallet/create-test-wallet.js';
import { issueCredentialToWallet } from '../src/issue-credential-to-wallet.js';
import { DEMO_VCT } from '../src/development/demo-constants.js';
import { decodeSdJwtPresentation, sha256Base64Url } from './support/decode-presentation.js';
import { ALICE, jwtVcQuery, queryOf, sdJwtQuery } from './support/queries.js';
import type { ClientIdPrefix, ResponseMode } from './support/start-test-verifier.js';
import { createWalletFixture, type WalletFixture } from './support/wallet-fixture.js';
import { switchInsecureUrlsOff } from './support/insecure-urls.js';

const PREFIXES: ClientIdPrefix[] = ['x509_san_dns', 'x509_hash', 'decentralized_identifier'];
const MODES: ResponseMode[] = ['direct_post', 'direct_post.jwt'];
const REQUESTED = ['service_id', 'eduperson_principal_name', 'email'];

describe('wallet answers a standards verifier', () => {
  let fixture: WalletFixture;

  beforeAll(async () => {
    fixture = await createWalletFixture();
  });
  afterAll(() => fixture.close());

  describe.each(PREFIXES)('client identifier prefix %s', (prefix) => {
    describe.each(MODES)('response mode %s', (responseMode) => {
      it('presents an SD-JWT VC with only the requested disclosures and a KB-JWT bound to client_id and nonce', async () => {
        const session = await fixture.verifier.createSession({
          prefix,
          responseMode,
          dcqlQuery: queryOf(sdJwtQuery('identity', REQUESTED)),
        });
        const result = await fixture.wallet.respond(session.link);

        expect(result.status, `the verifier's answer: ${JSON.stringify(result.body)}`).toBe(200);
        expect(result.redirectUri).toBe(`${fixture.verifier.baseUrl}/done/${session.id}`);
        expect(session.outcome).toMatchObject({
          accepted: true,
          claims: { identity: { service_id: 'demo-user-1', email: ALICE.email } },
        });
        expect(result.request).toMatchObject({
          clientId: session.clientId,
          clientIdPrefix: prefix,
          responseMode,
          nonce: session.nonce,
        });

        const [presentation] = result.posted.vpToken['identity']!;
        const decoded = decodeSdJwtPresentation(presentation!);
        expect(decoded.disclosures.map((disclosure) => disclosure.name).sort()).toEqual([...REQUESTED].sort());
        expect(decoded.keyBinding?.header).toEqual({ typ: 'kb+jwt', alg: 'ES256' });
        expect(decoded.keyBinding?.payload).toMatchObject({
          aud: session.clientId,
          nonce: session.nonce,
          sd_hash: sha256Base64Url(decoded.withoutKeyBinding),
        });
        expect(Math.abs((decoded.keyBinding!.payload['iat'] as number) - Date.now() / 1000)).toBeLessThan(60);
      });

      it('presents a jwt_vc_json credential inside a VP JWT signed by the holder with aud and nonce', async () => {
        const session = await fixture.verifier.createSession({
          prefix,
          responseMode,
          dcqlQuery: queryOf(jwtVcQuery('identity', REQUESTED)),
        });
        const result = await fixture.wallet.respond(session.link);

        expect(result.status).toBe(200);
        expect(session.outcome).toMatchObject({
          accepted: true,
          claims: { identity: { ...ALICE, id: fixture.wallet.holderDid } },
        });
        const [presentation] = result.posted.vpToken['identity']!;
        const vp = decodeJwt(presentation!);
        expect(decodeProtectedHeader(presentation!)).toMatchObject({
          alg: 'ES256',
          kid: `${fixture.wallet.holderDid}#0`,
        });
        expect(vp).toMatchObject({ iss: fixture.wallet.holderDid, aud: session.clientId, nonce: session.nonce });
        expect((vp['vp'] as { verifiableCredential: string[] }).verifiableCredential).toHaveLength(1);
      });
    });
  });

  it('posts direct_post as form fields vp_token (a JSON object of arrays keyed by query id) and state', async () => {
    const session = await fixture.verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post',
      dcqlQuery: queryOf(sdJwtQuery('identity', ['email'])),
    });
    await fixture.wallet.respond(session.link);
    const [form] = session.posts;
    expect(Object.keys(form!).sort()).toEqual(['state', 'vp_token']);
    expect(form!['state']).toBe(session.state);
    const vpToken = JSON.parse(form!['vp_token']!) as Record<string, unknown>;
    expect(Object.keys(vpToken)).toEqual(['identity']);
    expect(Array.isArray(vpToken['identity'])).toBe(true);
    expect(fixture.wallet.captureLastResponse()?.form).toEqual(form);
  });

  it('posts direct_post.jwt as a single `response` JWE (ECDH-ES, A128GCM) to the key in client_metadata.jwks', async () => {
    const session = await fixture.verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post.jwt',
      dcqlQuery: queryOf(sdJwtQuery('identity', ['email'])),
    });
    await fixture.wallet.respond(session.link);
    const [form] = session.posts;
    expect(Object.keys(form!)).toEqual(['response']);
    expect(decodeProtectedHeader(form!['response']!)).toMatchObject({
      alg: 'ECDH-ES',
      enc: 'A128GCM',
      kid: 'response-encryption-1',
    });
    const { plaintext } = await compactDecrypt(
      form!['response']!,
      await importJWK(fixture.verifier.keys.encryptionPrivateJwk, 'ECDH-ES'),
    );
    const decrypted = JSON.parse(new TextDecoder().decode(plaintext)) as {
      vp_token: Record<string, string[]>;
      state: string;
    };
    expect(decrypted.state).toBe(session.state);
    expect(decrypted.vp_token).toEqual(fixture.wallet.captureLastResponse()?.vpToken);
  });

  it('warns that the verifier certificate was not checked when no trust anchor is configured', async () => {
    const session = await fixture.verifier.createSession({
      prefix: 'x509_san_dns',
      responseMode: 'direct_post',
      dcqlQuery: queryOf(sdJwtQuery('identity', ['email'])),
    });
    const result = await fixture.wallet.respond(session.link);
    expect(result.warnings).toEqual([expect.stringMatching(/^x509-untrusted: /)]);
  });

  it('answers two credential queries in one vp_token', async () => {
    const session = await fixture.verifier.createSession({
      prefix: 'decentralized_identifier',
      responseMode: 'direct_post',
      dcqlQuery: queryOf(sdJwtQuery('sd', ['service_id']), jwtVcQuery('w3c', ['email'])),
    });
    const result = await fixture.wallet.respond(session.link);
    expect(result.status).toBe(200);
    expect(Object.keys(result.posted.vpToken).sort()).toEqual(['sd', 'w3c']);
  });

  it('takes the first satisfiable credential set option, or the format it is told to use', async () => {
    const dcqlQuery = {
      ...queryOf(sdJwtQuery('sd', ['service_id']), jwtVcQuery('w3c', ['service_id'])),
      credential_sets: [{ options: [['sd'], ['w3c']] }],
    };
    const first = await fixture.verifier.createSession({ prefix: 'x509_hash', responseMode: 'direct_post', dcqlQuery });
    expect(Object.keys((await fixture.wallet.respond(first.link)).posted.vpToken)).toEqual(['sd']);
    const second = await fixture.verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post',
      dcqlQuery,
    });
    const result = await fixture.wallet.respond(second.link, { formats: ['jwt_vc_json'] });
    expect(Object.keys(result.posted.vpToken)).toEqual(['w3c']);
    expect(second.outcome?.accepted).toBe(true);
  });

  it('uses the first satisfiable claim set and discloses nothing more', async () => {
    const dcqlQuery = queryOf({
      id: 'identity',
      format: 'dc+sd-jwt',
      meta: { vct_values: [DEMO_VCT] },
      claims: [
        { id: 'sid', path: ['service_id'] },
        { id: 'nick', path: ['nickname'] },
        { id: 'mail', path: ['email'] },
      ],
      claim_sets: [
        ['sid', 'nick'],
        ['sid', 'mail'],
      ],
    });
    const session = await fixture.verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post',
      dcqlQuery,
    });
    const result = await fixture.wallet.respond(session.link);
    expect(result.posted.presented[0]?.disclosedClaims.sort()).toEqual(['email', 'service_id']);
    expect(session.outcome?.accepted).toBe(true);
  });

  it('sends no selectively disclosed claim when the query asks for none', async () => {
    const session = await fixture.verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post',
      dcqlQuery: queryOf({ id: 'identity', format: 'dc+sd-jwt', meta: { vct_values: [DEMO_VCT] } }),
    });
    const result = await fixture.wallet.respond(session.link);
    expect(decodeSdJwtPresentation(result.posted.vpToken['identity']![0]!).disclosures).toEqual([]);
    expect(session.outcome?.accepted).toBe(true);
  });

  it('fetches the request object with POST, wallet_metadata and wallet_nonce when request_uri_method=post', async () => {
    const session = await fixture.verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post',
      dcqlQuery: queryOf(sdJwtQuery('identity', ['email'])),
      requestUriMethod: 'post',
    });
    const result = await fixture.wallet.respond(session.link);
    const [fetched] = session.requestFetches;
    expect(fetched?.method).toBe('POST');
    expect(JSON.parse(fetched!.form['wallet_metadata']!)).toMatchObject({
      client_id_prefixes_supported: ['x509_san_dns', 'x509_hash', 'decentralized_identifier'],
    });
    expect(fetched!.form['wallet_nonce']).toMatch(/^[\w-]{22}$/);
    expect(result.status).toBe(200);
  });

  it('switches the libraries’ insecure-URL setting back off after answering a loopback verifier', async () => {
    onTestFinished(switchInsecureUrlsOff());
    const session = await fixture.verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post',
      dcqlQuery: queryOf(sdJwtQuery('identity', ['email'])),
    });
    expect(getGlobalConfig().allowInsecureUrls).toBe(false);
    await fixture.wallet.respond(session.link);
    expect(getGlobalConfig().allowInsecureUrls).toBe(false);
  });
});

describe('wallet with trust anchors', () => {
  let fixture: WalletFixture;

  beforeAll(async () => {
    fixture = await createWalletFixture();
  });
  afterAll(() => fixture.close());

  it('accepts a verifier whose certificate chains to a configured anchor, without warning', async () => {
    const wallet = await createTestWallet({ trustAnchors: [fixture.verifier.keys.caCertificatePem] });
    await issueCredentialToWallet(fixture.issuer, wallet, { format: 'dc+sd-jwt', claims: ALICE });
    const session = await fixture.verifier.createSession({
      prefix: 'x509_san_dns',
      responseMode: 'direct_post',
      dcqlQuery: queryOf(sdJwtQuery('identity', ['email'])),
    });
    const result = await wallet.respond(session.link);
    expect(result.warnings).toEqual([]);
    expect(result.status).toBe(200);
  });

  it('refuses a verifier whose certificate does not chain to the configured anchor, posting nothing', async () => {
    const wallet = await createTestWallet({ trustAnchors: [fixture.issuer.x509.caCertificatePem] });
    await issueCredentialToWallet(fixture.issuer, wallet, { format: 'dc+sd-jwt', claims: ALICE });
    const session = await fixture.verifier.createSession({
      prefix: 'x509_san_dns',
      responseMode: 'direct_post',
      dcqlQuery: queryOf(sdJwtQuery('identity', ['email'])),
    });
    await expect(wallet.respond(session.link)).rejects.toMatchObject({ code: 'untrusted_verifier' });
    expect(session.posts).toEqual([]);
  });
});

describe('binding-key strategy', () => {
  let fixture: WalletFixture;

  beforeAll(async () => {
    fixture = await createWalletFixture();
  });
  afterAll(() => fixture.close());

  it('binds every credential to one holder key by default', async () => {
    const keys = [await fixture.wallet.nextBindingKey(), await fixture.wallet.nextBindingKey()];
    expect(keys[0]!.did).toBe(fixture.wallet.holderDid);
    expect(keys[1]!.publicJwk).toEqual(fixture.wallet.holderJwk);
  });

  it('binds each credential to a fresh key with freshKeyPerCredential, and signs each presentation with its own key', async () => {
    const wallet = await createTestWallet({ freshKeyPerCredential: true });
    const first = await issueCredentialToWallet(fixture.issuer, wallet, { format: 'dc+sd-jwt', claims: ALICE });
    const second = await issueCredentialToWallet(fixture.issuer, wallet, { format: 'jwt_vc_json', claims: ALICE });
    const cnf = (decodeJwt(first.raw.split('~')[0]!)['cnf'] as { jwk: unknown }).jwk;
    const subject = decodeJwt(second.raw).sub;
    expect(cnf).not.toEqual(wallet.holderJwk);
    expect(subject).not.toBe(wallet.holderDid);

    const session = await fixture.verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post',
      dcqlQuery: queryOf(sdJwtQuery('sd', ['email']), jwtVcQuery('w3c', ['email'])),
    });
    const result = await wallet.respond(session.link);
    expect(result.status).toBe(200);
    expect(decodeJwt(result.posted.vpToken['w3c']![0]!).iss).toBe(subject);
  });

  it('refuses to store a credential bound to a key it does not hold', async () => {
    const other = await createTestWallet();
    const credential = await fixture.issuer.issueSdJwtVc({ holderPublicJwk: other.holderJwk, vct: 'v', claims: {} });
    await expect(fixture.wallet.store(credential)).rejects.toMatchObject({ code: 'unknown_holder_key' });
  });
});
