import { createHash } from 'node:crypto';
import type { JWK } from 'jose';
import { systemClock } from '../../src/common/clock.js';
import { createDidJwk, didJwkKeyId } from '../../src/crypto/create-did-jwk.js';
import { generateEs256Key, toPublicJwk } from '../../src/crypto/generate-es256-key.js';
import { pemToX5cEntry } from '../../src/x509/convert-pem.js';
import { createCertificateAuthority, createLeafCertificate } from '../../src/x509/create-certificates.js';

/** Keys of the test verifier: a request-signing key with a CA-issued certificate for `dnsName`, and an encryption key. */
export interface VerifierKeys {
  signingJwk: JWK;
  did: string;
  didKeyId: string;
  caCertificatePem: string;
  leafCertificatePem: string;
  /** base64 DER of the leaf, the only x5c entry. */
  leafX5c: string;
  /** base64url SHA-256 of the leaf DER: the x509_hash client identifier (OpenID4VP 1.0 §5.9.3). */
  leafHash: string;
  encryptionPrivateJwk: JWK;
  encryptionPublicJwk: JWK;
}

export async function createVerifierKeys(dnsName: string): Promise<VerifierKeys> {
  const signingJwk = await generateEs256Key();
  const authority = await createCertificateAuthority('Test Verifier CA', systemClock, await generateEs256Key());
  const leafCertificatePem = await createLeafCertificate({
    authority,
    publicJwk: toPublicJwk(signingJwk),
    commonName: 'Test Verifier',
    names: { dnsNames: [dnsName] },
    clock: systemClock,
  });
  const leafX5c = pemToX5cEntry(leafCertificatePem);
  const encryptionPrivateJwk = { ...(await generateEs256Key()), kid: 'response-encryption-1' };
  const did = createDidJwk(signingJwk);
  return {
    signingJwk,
    did,
    didKeyId: didJwkKeyId(did),
    caCertificatePem: authority.certificatePem,
    leafCertificatePem,
    leafX5c,
    leafHash: createHash('sha256').update(Buffer.from(leafX5c, 'base64')).digest('base64url'),
    encryptionPrivateJwk,
    encryptionPublicJwk: {
      ...toPublicJwk(encryptionPrivateJwk),
      kid: 'response-encryption-1',
      use: 'enc',
      alg: 'ECDH-ES',
    },
  };
}
