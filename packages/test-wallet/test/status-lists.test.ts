import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Bitstring } from '@digitalbazaar/bitstring';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { ES256, digest } from '@sd-jwt/crypto-nodejs';
import { decodeJwt, decodeProtectedHeader, importJWK, jwtVerify, type JWTPayload } from 'jose';
import { createTestIssuer, type TestIssuer } from '../src/issuer/create-test-issuer.js';
import { createDidJwk } from '../src/crypto/create-did-jwk.js';
import { generateEs256Key, toPublicJwk } from '../src/crypto/generate-es256-key.js';
import type { StatusListServer } from '../src/issuer/serve-status-lists.js';
import { ALICE } from './support/queries.js';

async function fetchList(url: string): Promise<{ contentType: string | null; jwt: string; status: number }> {
  const response = await fetch(url);
  return { status: response.status, contentType: response.headers.get('content-type'), jwt: await response.text() };
}

async function encodedListBits(jwt: string): Promise<Bitstring> {
  const subject = (decodeJwt(jwt)['vc'] as { credentialSubject: { encodedList: string } }).credentialSubject;
  return new Bitstring({ buffer: await Bitstring.decodeBits({ encoded: subject.encodedList }) });
}

describe('status list server', () => {
  let issuer: TestIssuer;
  let server: StatusListServer;

  beforeAll(async () => {
    issuer = await createTestIssuer();
    server = await issuer.statusListServer();
  });
  afterAll(() => issuer.close());
  afterEach(() => issuer.setStatusListFault(undefined));

  it('serves on 127.0.0.1 and becomes the status base URL of the credentials', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    expect(issuer.statusBaseUrl).toBe(server.url);
  });

  it('serves a signed Token Status List (statuslist+jwt) whose entries follow revoke() and suspend()', async () => {
    await issuer.revoke('dc+sd-jwt', 3);
    await issuer.suspend('dc+sd-jwt', 5);
    const uri = issuer.statusListUris().token;
    const { contentType, jwt, status } = await fetchList(uri);
    const { payload, protectedHeader } = await jwtVerify(jwt, await importJWK(issuer.publicJwk, 'ES256'), {
      typ: 'statuslist+jwt',
    });
    const list = getListFromStatusListJWT(jwt);

    expect(status).toBe(200);
    expect(contentType).toBe('application/statuslist+jwt');
    expect(protectedHeader.kid).toBe(issuer.keyId);
    expect(payload).toMatchObject({ sub: uri, ttl: 300 });
    expect((payload as JWTPayload).exp! - payload.iat!).toBe(3600);
    expect(list.getBitsPerStatus()).toBe(2);
    expect([list.getStatus(3), list.getStatus(5), list.getStatus(4)]).toEqual([1, 2, 0]);

    await issuer.reinstate('dc+sd-jwt', 3);
    expect(getListFromStatusListJWT((await fetchList(uri)).jwt).getStatus(3)).toBe(0);
  });

  it('serves StatusList2021 credentials (JWT VCs with encodedList) for revocation and suspension', async () => {
    await issuer.revoke('jwt_vc_json', 7);
    await issuer.suspend('jwt_vc_json', 8);
    const uris = issuer.statusListUris();
    const revocation = await fetchList(uris.revocation);
    const suspension = await fetchList(uris.suspension);
    const { payload } = await jwtVerify(revocation.jwt, await importJWK(issuer.publicJwk, 'ES256'), {
      issuer: issuer.issuerId,
    });
    const vc = payload['vc'] as { type: string[]; credentialSubject: Record<string, unknown> };

    expect(revocation.contentType).toBe('application/vc+jwt');
    expect(vc.type).toEqual(['VerifiableCredential', 'StatusList2021Credential']);
    expect(vc.credentialSubject).toMatchObject({
      id: `${uris.revocation}#list`,
      type: 'StatusList2021',
      statusPurpose: 'revocation',
    });
    const revoked = await encodedListBits(revocation.jwt);
    const suspended = await encodedListBits(suspension.jwt);
    expect(revoked.length).toBe(131_072);
    expect([revoked.get(7), revoked.get(8), suspended.get(7), suspended.get(8)]).toEqual([true, false, false, true]);
  });

  it('lets the sd-jwt-vc library verifier reject a credential once it is revoked', async () => {
    const holderPublicJwk = toPublicJwk(await generateEs256Key());
    const credential = await issuer.issueSdJwtVc({ holderPublicJwk, vct: 'urn:test:vct', claims: ALICE });
    const verifier = new SDJwtVcInstance({ hasher: digest, verifier: await ES256.getVerifier(issuer.publicJwk) });
    await expect(verifier.verify(credential.raw)).resolves.toBeDefined();
    await issuer.revoke('dc+sd-jwt', credential.statusIndex!);
    await expect(verifier.verify(credential.raw)).rejects.toThrow('Status is not valid');
  });

  it('references the served revocation list from jwt_vc_json credentials', async () => {
    const credential = await issuer.issueJwtVc({
      holderDid: createDidJwk(toPublicJwk(await generateEs256Key())),
      type: 'T',
      claims: {},
    });
    await issuer.revoke('jwt_vc_json', credential.statusIndex!);
    const entry = (
      decodeJwt(credential.raw)['vc'] as { credentialStatus: { statusListCredential: string; statusListIndex: string } }
    ).credentialStatus;
    const bits = await encodedListBits((await fetchList(entry.statusListCredential)).jwt);
    expect(bits.get(Number(entry.statusListIndex))).toBe(true);
  });

  it('answers 404 for an unknown path and 405 for a POST', async () => {
    expect((await fetch(`${server.url}/status-lists/unknown`)).status).toBe(404);
    expect((await fetch(issuer.statusListUris().token, { method: 'POST' })).status).toBe(405);
  });

  describe('faults for fail-closed tests', () => {
    it('wrong-sub: sub differs from the referenced URI', async () => {
      issuer.setStatusListFault('wrong-sub');
      const uri = issuer.statusListUris().token;
      expect(decodeJwt((await fetchList(uri)).jwt).sub).toBe(`${uri}/other`);
    });

    it('expired: exp lies in the past, the signature is still the issuer’s', async () => {
      issuer.setStatusListFault('expired');
      const { jwt } = await fetchList(issuer.statusListUris().token);
      const payload = decodeJwt(jwt);
      expect(payload.exp!).toBeLessThan(Date.now() / 1000);
      await expect(jwtVerify(jwt, await importJWK(issuer.publicJwk, 'ES256'))).rejects.toThrow(/exp/);
    });

    it('unsigned: alg none, empty signature', async () => {
      issuer.setStatusListFault('unsigned');
      const { jwt } = await fetchList(issuer.statusListUris().revocation);
      expect(decodeProtectedHeader(jwt).alg).toBe('none');
      expect(jwt.endsWith('.')).toBe(true);
    });

    it('forged: a valid-looking signature that the issuer key does not verify', async () => {
      issuer.setStatusListFault('forged');
      const { jwt } = await fetchList(issuer.statusListUris().token);
      expect(decodeProtectedHeader(jwt).kid).toBe(issuer.keyId);
      await expect(jwtVerify(jwt, await importJWK(issuer.publicJwk, 'ES256'))).rejects.toThrow(
        'signature verification failed',
      );
    });

    it('unavailable: every list answers 503', async () => {
      issuer.setStatusListFault('unavailable');
      expect((await fetchList(issuer.statusListUris().token)).status).toBe(503);
      expect((await fetchList(issuer.statusListUris().suspension)).status).toBe(503);
    });
  });
});

describe('status list state across processes', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'test-wallet-status-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('shows a revocation made by another issuer instance on the same data directory', async () => {
    const serving = await createTestIssuer({ dataDir, statusBaseUrl: 'http://127.0.0.1:1' });
    const server = await serving.statusListServer();
    try {
      const other = await createTestIssuer({ dataDir, statusBaseUrl: 'http://127.0.0.1:1' });
      await other.revoke('dc+sd-jwt', 11);
      const jwt = await (await fetch(`${server.url}/status-lists/token/1`)).text();
      expect(getListFromStatusListJWT(jwt).getStatus(11)).toBe(1);
      expect(await serving.statusOf('dc+sd-jwt', 11)).toBe('revoked');
    } finally {
      await serving.close();
    }
  });
});
