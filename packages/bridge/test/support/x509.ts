import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { exportJWK, type CryptoKey as JoseCryptoKey } from 'jose';
import { x509, x509Crypto } from '../../src/crypto/certificates.js';
import type { TestKey } from './credentials.js';

/** A CA and a leaf for X.509 issuer trust tests (RFC 5280), ES256 keys from Web Crypto. */
export interface TestPki {
  caPem: string;
  leafPem: string;
  /** x5c header: the leaf, then the CA when `withCa`. */
  x5c: string[];
  /** The leaf's key, usable with the credential builders. */
  leafKey: TestKey;
}

const alg = { name: 'ECDSA', namedCurve: 'P-256' } as const;

export async function createPki(options: {
  issuerUri: string;
  withCa?: boolean;
  /** Of the leaf; the CA is valid from an hour ago to a day ahead. */
  notBefore?: Date;
  notAfter?: Date;
}): Promise<TestPki> {
  const caKeys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const leafKeys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const notBefore = new Date(Date.now() - 3_600_000);
  const notAfter = options.notAfter ?? new Date(Date.now() + 86_400_000);
  const ca = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: '01',
      name: 'CN=Test issuer CA',
      notBefore,
      notAfter: new Date(Date.now() + 86_400_000),
      keys: caKeys as never,
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } as never,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
      ],
    },
    x509Crypto,
  );
  const leaf = await x509.X509CertificateGenerator.create(
    {
      serialNumber: '02',
      subject: 'CN=Test issuer',
      issuer: ca.subject,
      notBefore: options.notBefore ?? notBefore,
      notAfter,
      publicKey: leafKeys.publicKey as never,
      signingKey: caKeys.privateKey as never,
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } as never,
      extensions: [
        new x509.SubjectAlternativeNameExtension([{ type: 'url', value: options.issuerUri }]),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      ],
    },
    x509Crypto,
  );
  const der = (c: x509.X509Certificate) => Buffer.from(c.rawData).toString('base64');
  const { kty, crv, x, y } = await exportJWK(leafKeys.publicKey as unknown as JoseCryptoKey);
  return {
    caPem: ca.toString('pem'),
    leafPem: leaf.toString('pem'),
    x5c: options.withCa ? [der(leaf), der(ca)] : [der(leaf)],
    leafKey: {
      privateKey: leafKeys.privateKey as unknown as JoseCryptoKey,
      publicJwk: { kty, crv, x, y },
      did: options.issuerUri,
      kid: 'leaf',
    },
  };
}
