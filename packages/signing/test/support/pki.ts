import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/** A test certification authority on Web Crypto: certificates for any SubjectPublicKeyInfo (RSA, EC, DSA). */
type X509Crypto = Parameters<typeof x509.cryptoProvider.set>[0];
const crypto = webcrypto as unknown as X509Crypto;
x509.cryptoProvider.set(crypto);
const subtle = webcrypto.subtle;

const RSA = {
  name: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  publicExponent: new Uint8Array([1, 0, 1]),
  modulusLength: 2048,
};

export interface TestCa {
  certificate: Buffer;
  issue(
    spki: Buffer,
    options?: { subject?: string; notBefore?: Date; notAfter?: Date; serial?: string },
  ): Promise<Buffer>;
}

export async function createTestCa(name = 'Tessera Test CA'): Promise<TestCa> {
  const keys = (await subtle.generateKey(RSA, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const now = Date.now();
  const ca = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: '01',
      name: `CN=${name}`,
      notBefore: new Date(now - 86_400_000),
      notAfter: new Date(now + 10 * 365 * 86_400_000),
      keys: keys as never,
      signingAlgorithm: RSA,
      extensions: [
        new x509.BasicConstraintsExtension(true, 1, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      ],
    },
    crypto,
  );
  let serial = 100;
  return {
    certificate: Buffer.from(ca.rawData),
    async issue(spki, options = {}) {
      const cert = await x509.X509CertificateGenerator.create(
        {
          serialNumber: options.serial ?? (serial++).toString(16).padStart(4, '0'),
          subject: options.subject ?? 'CN=Test Signer, O=Tessera',
          issuer: ca.subject,
          notBefore: options.notBefore ?? new Date(now - 3_600_000),
          notAfter: options.notAfter ?? new Date(now + 365 * 86_400_000),
          publicKey: new x509.PublicKey(new Uint8Array(spki).buffer as ArrayBuffer),
          signingKey: keys.privateKey as never,
          signingAlgorithm: RSA,
          extensions: [
            new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation, true),
          ],
        },
        crypto,
      );
      return Buffer.from(cert.rawData);
    },
  };
}
