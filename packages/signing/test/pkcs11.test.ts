import { X509Certificate, createPublicKey, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { signThroughApi, startSigningBed, type SigningBed } from './support/bed.js';
import { pdfsig, samplePdf } from './support/pdfs.js';
import { SOFTHSM_LIBRARY, startSoftHsm } from './support/softhsm.js';

/**
 * The PKCS #11 provider on SoftHSM2 (issue 21 §4b) through the same operations: keys made on the token and found by
 * CKA_ID, certificates imported against them (operation 5), a key entry linked (operation 6), PAdES signatures
 * validated by pdfsig (hash-then-sign: SoftHSM2 has CKM_ECDSA but not CKM_ECDSA_SHA256), and the refusals of what
 * the token cannot do (SHA-3, DSA), naming algorithm and provider.
 */
describe.each(DATABASE_KINDS)('PKCS #11 key provider on SoftHSM2 (%s)', (kind) => {
  let bed: SigningBed;
  let hsm: Awaited<ReturnType<typeof startSoftHsm>>;
  let rsaKid: string;
  let ecKid: string;

  beforeAll(async () => {
    hsm = await startSoftHsm();
    bed = await startSigningBed(kind, {
      pkcs11: { hsm: { libraryPath: SOFTHSM_LIBRARY, tokenLabel: hsm.label, pin: hsm.pin, tenants: ['demo'] } },
    });
    const rsa = await bed.call('POST', '/keys', { keyProviderId: 'hsm', keyType: 'RSA_2048' });
    expect(rsa.status).toBe(201);
    rsaKid = rsa.body.providerKid;
    const ec = await bed.call('POST', '/keys', { keyProviderId: 'hsm', keyType: 'EC_P256', providerKid: 'a1b2c3d4' });
    expect(ec.status).toBe(201);
    ecKid = ec.body.providerKid;
    for (const [kid, key] of [
      ['hsm-rsa', rsa],
      ['hsm-ec', ec],
    ] as const) {
      const certificate = await bed.ca.issue(Buffer.from(key.body.publicKey.value, 'base64'), { subject: `CN=${kid}` });
      const imported = await bed.call('POST', '/providers/hsm/certificates', {
        kid,
        certificate: certificate.toString('base64'),
        certificateChain: [bed.ca.certificate.toString('base64')],
      });
      expect(imported.status).toBe(201);
      expect(imported.body.keyEntry.attributes).toContainEqual({ name: 'providerKid', value: key.body.providerKid });
    }
  });
  afterAll(async () => {
    await bed?.close();
    await hsm?.close();
  });

  it('signs PAdES with RSA and ECDSA keys on the token; pdfsig reports both signatures valid', async () => {
    const once = await signThroughApi(bed, { pdf: await samplePdf(), kid: 'hsm-rsa', keyProviderId: 'hsm' });
    const twice = await signThroughApi(bed, {
      pdf: once,
      kid: 'hsm-ec',
      keyProviderId: 'hsm',
      pades: { reason: 'Token' },
    });
    const result = await pdfsig(twice);
    expect(result.signatures.map((s) => s.valid)).toEqual([true, true]);
    expect(result.text).toContain('hsm-ec');
  });

  it('signs raw data with PSS and ECDSA on the token, verified with the certificate key', async () => {
    const data = Buffer.from('raw data on a token');
    for (const [kid, algorithm] of [
      ['hsm-rsa', 'RSA_SSA_PSS_SHA256_MGF1'],
      ['hsm-rsa', 'RSA_SHA512'],
      ['hsm-ec', 'ECDSA_SHA384'],
    ] as const) {
      const binding = { kid, signatureConfigId: 'default', keyProviderId: 'hsm' };
      const origData = { name: 'd', mimeType: 'text/plain', content: data.toString('base64') };
      const determined = await bed.call('POST', '/signature-input', { origData, signMode: 'DOCUMENT', binding });
      const signed = await bed.call('POST', '/signature', {
        signInput: determined.body.signInput,
        signatureAlgorithm: algorithm,
      });
      expect(signed.status).toBe(200);
      const key = new X509Certificate(Buffer.from(signed.body.signature.keyEntry.certificate.value, 'base64'))
        .publicKey;
      const hash = algorithm === 'ECDSA_SHA384' ? 'sha384' : algorithm === 'RSA_SHA512' ? 'sha512' : 'sha256';
      const options = algorithm.includes('PSS') ? { key, padding: 6, saltLength: 32 } : key;
      expect(verify(hash, data, options, Buffer.from(signed.body.signature.value, 'base64'))).toBe(true);
    }
  });

  it('refuses SHA-3 and DSA on SoftHSM2, naming algorithm and provider (400)', async () => {
    const binding = { kid: 'hsm-rsa', signatureConfigId: 'default', keyProviderId: 'hsm' };
    const origData = { name: 'd', mimeType: 'text/plain', content: Buffer.from('x').toString('base64') };
    const determined = await bed.call('POST', '/signature-input', { origData, signMode: 'DOCUMENT', binding });
    for (const algorithm of ['RSA_SHA3_256', 'RSA_SSA_PSS_SHA3_512_MGF1', 'DSA_SHA256']) {
      const res = await bed.call('POST', '/signature', {
        signInput: determined.body.signInput,
        signatureAlgorithm: algorithm,
      });
      expect(res.status).toBe(400);
      expect(res.body.error_description).toContain(algorithm);
      expect(res.body.error_description).toContain('hsm');
    }
  });

  it('links a key entry to a token key by CKA_ID (operation 6) and signs with it; unknown keys and other tenants are refused', async () => {
    const linked = await bed.call('POST', '/providers/hsm/key-entries', { kid: 'hsm-linked', providerKid: ecKid });
    expect(linked.status).toBe(201);
    expect(linked.body.keyEntry).toMatchObject({ kid: 'hsm-linked', providerId: 'hsm', encryptionAlgorithm: 'ECDSA' });
    expect(linked.body.accessRestrictions).toEqual({ subjectId: 'alice', roleRestrictions: [], accessLevel: 'TENANT' });
    const origData = { name: 'd', mimeType: 'text/plain', content: Buffer.from('linked').toString('base64') };
    const binding = { kid: 'hsm-linked', signatureConfigId: 'default', keyProviderId: 'hsm' };
    const determined = await bed.call('POST', '/signature-input', { origData, signMode: 'DOCUMENT', binding });
    const signed = await bed.call('POST', '/signature', { signInput: determined.body.signInput });
    expect(signed.status).toBe(200);
    expect(signed.body.signature.algorithm).toBe('ECDSA_SHA256');
    const spki = Buffer.from(linked.body.keyEntry.publicKey.value, 'base64');
    const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
    expect(verify('sha256', Buffer.from('linked'), key, Buffer.from(signed.body.signature.value, 'base64'))).toBe(true);
    const again = await bed.call('POST', '/providers/hsm/key-entries', { kid: 'hsm-linked', providerKid: rsaKid });
    expect(again.status).toBe(409);
    const unknown = await bed.call('POST', '/providers/hsm/key-entries', { kid: 'hsm-none', providerKid: 'ffff' });
    expect(unknown.status).toBe(400);
    const beta = await bed.token({ sub: 'bob', tenant_id: 'beta', roles: ['tenant-admin'] });
    const foreign = await bed.call('POST', '/providers/hsm/key-entries', { kid: 'stolen', providerKid: ecKid }, beta);
    expect(foreign.status).toBe(404);
  });
});
