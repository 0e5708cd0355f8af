import { X509Certificate, constants, createHash, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNATURE_ALGORITHMS, algorithmSpec, type SignatureAlgorithm } from '../src/domain/algorithms.js';
import { startSigningBed, type SigningBed } from './support/bed.js';

/**
 * Raw signatures through the API for the whole SignatureAlgorithm enumeration of 002 §2.1 plus ECDSA (issue 21 §2):
 * determine → (digest) → sign → merge, each signature verified by node:crypto with the public key of the key
 * entry's certificate (PSS with MGF1 over the hash the name gives); and the refusals, 400 naming algorithm and
 * provider. The RAW algorithms sign a digest given in DIGEST mode, under SHA-256 and SHA3-512.
 */
const data = Buffer.from('raw data to sign, 002 §2.1 SignMode DOCUMENT');
/** The OpenSSL names of the digests, written out here rather than taken from the code under test. */
const OPENSSL_NAMES = {
  SHA256: 'sha256',
  SHA384: 'sha384',
  SHA512: 'sha512',
  SHA3_256: 'sha3-256',
  SHA3_512: 'sha3-512',
} as const;
const KIDS = { RSA: 'raw-rsa', EC: 'raw-ec', DSA: 'raw-dsa' } as const;

describe('raw signatures over the algorithm enumeration (pglite)', () => {
  let bed: SigningBed;
  const certificates: Record<string, X509Certificate> = {};
  beforeAll(async () => {
    bed = await startSigningBed('pglite', {
      signatureConfigs: {
        default: { digestAlgorithm: 'SHA256' },
        'sha3-512': { digestAlgorithm: 'SHA3_512' },
        pades: { digestAlgorithm: 'SHA256', signatureFormParameters: { padesSignatureFormParameters: {} } },
      },
    });
    for (const [type, kid] of [
      ['RSA_3072', KIDS.RSA],
      ['EC_P384', KIDS.EC],
      ['DSA_2048', KIDS.DSA],
    ] as const) {
      const { certificate } = await bed.softwareEntry(kid, type);
      certificates[kid] = new X509Certificate(certificate);
    }
  });
  afterAll(async () => bed?.close());

  async function signRaw(algorithm: SignatureAlgorithm, configId: string) {
    const spec = algorithmSpec(algorithm);
    const kid = KIDS[spec.keyKind];
    const binding = { kid, signatureConfigId: configId, keyProviderId: 'software' };
    const origData = { name: 'data.bin', mimeType: 'application/octet-stream', content: data.toString('base64') };
    const signMode = spec.digest === null ? 'DIGEST' : 'DOCUMENT';
    const determined = await bed.call('POST', '/signature-input', { origData, signMode, binding });
    expect(determined.status).toBe(200);
    const signed = await bed.call('POST', '/signature', {
      signInput: determined.body.signInput,
      signatureAlgorithm: algorithm,
      ...(spec.scheme === 'PSS' ? { maskGenFunction: 'MGF1' } : {}),
    });
    return { signed, origData, kid };
  }

  const rows: Array<readonly [SignatureAlgorithm, string, string]> = [];
  for (const algorithm of SIGNATURE_ALGORITHMS) {
    const digest = algorithmSpec(algorithm).digest;
    if (digest === null) rows.push([algorithm, 'default', 'sha256'], [algorithm, 'sha3-512', 'sha3-512']);
    else rows.push([algorithm, 'default', OPENSSL_NAMES[digest]]);
  }

  it.each(rows)(
    '%s (%s) verifies with node:crypto and the certificate key; merge makes a CMS',
    async (algorithm, configId, hash) => {
      const { signed, origData, kid } = await signRaw(algorithm, configId);
      expect(signed.status).toBe(200);
      const signature = signed.body.signature;
      expect(signature).toMatchObject({ algorithm, binding: { kid }, keyEntry: { kid, providerId: 'software' } });
      const key = certificates[kid]!.publicKey;
      const value = Buffer.from(signature.value, 'base64');
      const spec = algorithmSpec(algorithm);
      const options =
        spec.scheme === 'PSS'
          ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: createHash(hash).digest().length }
          : spec.scheme === 'PKCS1'
            ? { key, padding: constants.RSA_PKCS1_PADDING }
            : { key, dsaEncoding: 'der' as const };
      expect(verify(hash, data, options, value)).toBe(true);
      const merged = await bed.call('POST', '/merge', { origData, signature });
      expect(merged.status).toBe(200);
      expect(merged.body.signOutput.mimeType).toBe('application/pkcs7-signature');
    },
  );

  it('refuses an algorithm the key cannot do, naming algorithm and provider (400)', async () => {
    const binding = { kid: KIDS.EC, signatureConfigId: 'default', keyProviderId: 'software' };
    const origData = { name: 'd', mimeType: 'text/plain', content: data.toString('base64') };
    const determined = await bed.call('POST', '/signature-input', { origData, signMode: 'DOCUMENT', binding });
    for (const algorithm of ['RSA_SHA256', 'DSA_SHA256', 'RSA_SSA_PSS_SHA256_MGF1']) {
      const res = await bed.call('POST', '/signature', {
        signInput: determined.body.signInput,
        signatureAlgorithm: algorithm,
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('unsupported_algorithm');
      expect(res.body.error_description).toContain(algorithm);
      expect(res.body.error_description).toContain('software');
    }
  });

  it('refuses a RAW algorithm over a document, a hash that differs from the digest, MGF1 without PSS (400)', async () => {
    const binding = { kid: KIDS.RSA, signatureConfigId: 'default', keyProviderId: 'software' };
    const origData = { name: 'd', mimeType: 'text/plain', content: data.toString('base64') };
    const documentInput = (await bed.call('POST', '/signature-input', { origData, signMode: 'DOCUMENT', binding })).body
      .signInput;
    const digestInput = (await bed.call('POST', '/signature-input', { origData, signMode: 'DIGEST', binding })).body
      .signInput;
    const raw = await bed.call('POST', '/signature', { signInput: documentInput, signatureAlgorithm: 'RSA_RAW' });
    expect(raw.status).toBe(400);
    expect(raw.body.error_description).toContain('DIGEST');
    const mismatch = await bed.call('POST', '/signature', { signInput: digestInput, signatureAlgorithm: 'RSA_SHA512' });
    expect(mismatch.status).toBe(400);
    const mgf = await bed.call('POST', '/signature', {
      signInput: documentInput,
      signatureAlgorithm: 'RSA_SHA256',
      maskGenFunction: 'MGF1',
    });
    expect(mgf.status).toBe(400);
    const unknown = await bed.call('POST', '/signature', { signInput: documentInput, signatureAlgorithm: 'RSA_MD5' });
    expect(unknown.status).toBe(400);
  });

  it('creates the digest (operation 2) that a DIGEST-mode signature verifies against', async () => {
    const binding = { kid: KIDS.RSA, signatureConfigId: 'default', keyProviderId: 'software' };
    const origData = { name: 'd', mimeType: 'text/plain', content: data.toString('base64') };
    const documentInput = (await bed.call('POST', '/signature-input', { origData, signMode: 'DOCUMENT', binding })).body
      .signInput;
    const digested = await bed.call('POST', '/digest', { signInput: documentInput });
    expect(digested.status).toBe(200);
    expect(digested.body.signInput.signMode).toBe('DIGEST');
    expect(Buffer.from(digested.body.signInput.input, 'base64')).toEqual(createHash('sha256').update(data).digest());
    const signed = await bed.call('POST', '/signature', {
      signInput: digested.body.signInput,
      signatureAlgorithm: 'RSA_RAW',
    });
    expect(
      verify('sha256', data, certificates[KIDS.RSA]!.publicKey, Buffer.from(signed.body.signature.value, 'base64')),
    ).toBe(true);
  });
});
