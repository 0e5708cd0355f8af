import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { ES256, digest } from '@sd-jwt/crypto-nodejs';
import { decodeJwt, decodeProtectedHeader, exportJWK, importJWK, jwtVerify, type JWK } from 'jose';
import { createTestIssuer, type TestIssuer } from '../src/issuer/create-test-issuer.js';
import { loadOrCreateDevelopmentIssuer } from '../src/development/load-development-issuer.js';
import { createDidJwk } from '../src/crypto/create-did-jwk.js';
import { generateEs256Key, toPublicJwk } from '../src/crypto/generate-es256-key.js';
import { decodeSdJwtPresentation } from './support/decode-presentation.js';
import { ALICE } from './support/queries.js';

const STATUS_BASE = 'http://127.0.0.1:8599';

describe('test issuer: issuance', () => {
  let issuer: TestIssuer;
  let holderJwk: JWK;

  beforeAll(async () => {
    issuer = await createTestIssuer({ statusBaseUrl: STATUS_BASE });
    holderJwk = toPublicJwk(await generateEs256Key());
  });

  it('issues an SD-JWT VC that the sd-jwt-vc library verifies, bound to the holder key, with a status entry', async () => {
    const credential = await issuer.issueSdJwtVc({
      holderPublicJwk: holderJwk,
      vct: 'urn:test:vct',
      claims: ALICE,
      withStatus: true,
    });
    const sdJwt = new SDJwtVcInstance({
      hasher: digest,
      verifier: await ES256.getVerifier(issuer.publicJwk),
      // No server runs here: the status list comes straight from the issuer (the server is tested elsewhere).
      statusListFetcher: () => issuer.signTokenStatusList(),
    });
    const { payload, header } = await sdJwt.verify(credential.raw);

    expect(credential.format).toBe('dc+sd-jwt');
    expect(header).toMatchObject({ typ: 'dc+sd-jwt', alg: 'ES256', kid: issuer.keyId });
    expect(payload).toMatchObject({ ...ALICE, iss: issuer.issuerId, vct: 'urn:test:vct', cnf: { jwk: holderJwk } });
    expect(payload.status).toEqual({
      status_list: { idx: credential.statusIndex, uri: `${STATUS_BASE}/status-lists/token/1` },
    });
    expect(payload.exp! - payload.iat!).toBe(365 * 24 * 3600);
  });

  it('makes every user claim selectively disclosable and references each Disclosure by its digest', async () => {
    const credential = await issuer.issueSdJwtVc({ holderPublicJwk: holderJwk, vct: 'urn:test:vct', claims: ALICE });
    const decoded = decodeSdJwtPresentation(credential.raw);
    expect(decoded.disclosures.map((disclosure) => disclosure.name).sort()).toEqual(Object.keys(ALICE).sort());
    expect(decoded.issuerPayload['_sd_alg']).toBe('sha-256');
    expect([...decoded.digests].sort()).toEqual(decoded.disclosures.map((disclosure) => disclosure.digest).sort());
    expect(decoded.issuerPayload).not.toHaveProperty('email');
    expect(credential.raw.endsWith('~')).toBe(true);
  });

  it('allocates status indexes one after another and honours an explicit index', async () => {
    const first = await issuer.issueSdJwtVc({ holderPublicJwk: holderJwk, vct: 'urn:test:vct', claims: {} });
    const second = await issuer.issueSdJwtVc({ holderPublicJwk: holderJwk, vct: 'urn:test:vct', claims: {} });
    const explicit = await issuer.issueSdJwtVc({
      holderPublicJwk: holderJwk,
      vct: 'urn:test:vct',
      claims: {},
      statusIndex: 99_999_999,
    });
    expect(second.statusIndex).toBe(first.statusIndex! + 1);
    expect(explicit.statusIndex).toBe(99_999_999);
    expect((decodeJwt(explicit.raw.split('~')[0]!)['status'] as { status_list: { idx: number } }).status_list.idx).toBe(
      99_999_999,
    );
  });

  it('issues a W3C VC JWT that jose verifies, with the holder did:jwk as subject and a StatusList2021 entry', async () => {
    const holderDid = createDidJwk(holderJwk);
    const credential = await issuer.issueJwtVc({ holderDid, type: 'IdentityCredential', claims: ALICE });
    const { payload, protectedHeader } = await jwtVerify(credential.raw, await importJWK(issuer.publicJwk, 'ES256'), {
      issuer: issuer.issuerId,
      subject: holderDid,
    });
    const vc = payload['vc'] as Record<string, unknown>;

    expect(protectedHeader).toMatchObject({ alg: 'ES256', kid: issuer.keyId });
    expect(vc['type']).toEqual(['VerifiableCredential', 'IdentityCredential']);
    expect(vc['credentialSubject']).toEqual({ id: holderDid, ...ALICE });
    expect(vc['@context']).toEqual([
      'https://www.w3.org/2018/credentials/v1',
      'https://w3id.org/vc/status-list/2021/v1',
    ]);
    expect(vc['credentialStatus']).toEqual({
      id: `${STATUS_BASE}/status-lists/w3c/revocation#${credential.statusIndex}`,
      type: 'StatusList2021Entry',
      statusPurpose: 'revocation',
      statusListIndex: String(credential.statusIndex),
      statusListCredential: `${STATUS_BASE}/status-lists/w3c/revocation`,
    });
    expect(payload.jti).toBe(vc['id']);
  });

  it('adds a suspension entry beside the revocation entry when asked', async () => {
    const credential = await issuer.issueJwtVc({
      holderDid: createDidJwk(holderJwk),
      type: 'IdentityCredential',
      claims: {},
      statusPurposes: ['revocation', 'suspension'],
    });
    const status = (
      decodeJwt(credential.raw)['vc'] as {
        credentialStatus: Array<{ statusPurpose: string; statusListCredential: string }>;
      }
    ).credentialStatus;
    expect(status.map((entry) => entry.statusPurpose)).toEqual(['revocation', 'suspension']);
    expect(status[1]!.statusListCredential).toBe(`${STATUS_BASE}/status-lists/w3c/suspension`);
  });

  it('signs with its X.509 chain on request: x5c leaf issued by the exposed CA, iss = the leaf SAN URI', async () => {
    const credential = await issuer.issueSdJwtVc({
      holderPublicJwk: holderJwk,
      vct: 'urn:test:vct',
      claims: ALICE,
      keyReference: 'x5c',
      withStatus: false,
    });
    const [jwt] = credential.raw.split('~');
    const header = decodeProtectedHeader(jwt!);
    const leaf = new X509Certificate(Buffer.from(header.x5c![0]!, 'base64'));
    const ca = new X509Certificate(issuer.x509.caCertificatePem);
    const sdJwt = new SDJwtVcInstance({
      hasher: digest,
      verifier: await ES256.getVerifier(await exportJWK(leaf.publicKey)),
    });
    const { payload } = await sdJwt.verify(credential.raw);

    expect(header.kid).toBeUndefined();
    expect(header.x5c).toHaveLength(1);
    expect(leaf.checkIssued(ca) && leaf.verify(ca.publicKey)).toBe(true);
    expect(ca.ca).toBe(true);
    expect(leaf.subjectAltName).toContain(`URI:${issuer.x509.issuerUri}`);
    expect(payload.iss).toBe(issuer.x509.issuerUri);
  });

  it('produces issuer-side hostile SD-JWTs: duplicate digest, reserved Disclosure name, alg none', async () => {
    const duplicate = decodeSdJwtPresentation(
      (
        await issuer.issueSdJwtVc({
          holderPublicJwk: holderJwk,
          vct: 'v',
          claims: ALICE,
          hostile: { duplicateDigest: true },
        })
      ).raw,
    );
    expect(new Set(duplicate.digests).size).toBe(duplicate.digests.length - 1);

    const reserved = decodeSdJwtPresentation(
      (
        await issuer.issueSdJwtVc({
          holderPublicJwk: holderJwk,
          vct: 'v',
          claims: ALICE,
          hostile: { disclosureNamed: '_sd' },
        })
      ).raw,
    );
    const named = reserved.disclosures.find((disclosure) => disclosure.name === '_sd');
    expect(named && reserved.digests.includes(named.digest)).toBe(true);

    const unsigned = (
      await issuer.issueSdJwtVc({ holderPublicJwk: holderJwk, vct: 'v', claims: ALICE, hostile: { unsigned: true } })
    ).raw;
    expect(decodeProtectedHeader(unsigned.split('~')[0]!).alg).toBe('none');
    expect(unsigned.split('~')[0]!.endsWith('.')).toBe(true);
  });

  it('publishes its key in jwks() with the did:jwk key id', () => {
    expect(issuer.jwks().keys).toEqual([{ ...issuer.publicJwk, kid: issuer.keyId, use: 'sig', alg: 'ES256' }]);
    expect(issuer.issuerId).toBe(createDidJwk(issuer.publicJwk));
  });
});

describe('test issuer: persistence', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'test-wallet-issuer-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('keeps the same key, identifier and CA across runs and writes the CA certificate as PEM', async () => {
    const first = await createTestIssuer({ dataDir, statusBaseUrl: STATUS_BASE });
    const second = await createTestIssuer({ dataDir, statusBaseUrl: STATUS_BASE });
    expect(second.issuerId).toBe(first.issuerId);
    expect(second.x509.caCertificatePem).toBe(first.x509.caCertificatePem);
    expect(first.x509.caCertificatePath).toBe(join(dataDir, 'issuer-ca.pem'));
    expect(await readFile(first.x509.caCertificatePath!, 'utf8')).toBe(first.x509.caCertificatePem);
  });

  it('continues status index allocation where the previous run stopped', async () => {
    const holderPublicJwk = toPublicJwk(await generateEs256Key());
    const first = await (
      await createTestIssuer({ dataDir, statusBaseUrl: STATUS_BASE })
    ).issueSdJwtVc({ holderPublicJwk, vct: 'v', claims: {} });
    const second = await (
      await createTestIssuer({ dataDir, statusBaseUrl: STATUS_BASE })
    ).issueSdJwtVc({ holderPublicJwk, vct: 'v', claims: {} });
    expect(second.statusIndex).toBe(first.statusIndex! + 1);
  });

  it('gives the development issuer the same identifier to every caller of loadOrCreateDevelopmentIssuer', async () => {
    const [a, b] = await Promise.all([loadOrCreateDevelopmentIssuer(dataDir), loadOrCreateDevelopmentIssuer(dataDir)]);
    expect(a.issuerId).toBe(b.issuerId);
    expect(a.issuerId.startsWith('did:jwk:')).toBe(true);
    expect(a.statusBaseUrl).toBe('http://127.0.0.1:8500');
    expect(a.x509.caCertificatePath).toBe(join(dataDir, 'issuer', 'issuer-ca.pem'));
  });
});
