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
  const { certificate: ca, keys: caKeys } = await selfSignedCa('CN=Test issuer CA');
  const leafKeys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const notBefore = new Date(Date.now() - 3_600_000);
  const notAfter = options.notAfter ?? new Date(Date.now() + 86_400_000);
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

/** A test CA that certifies PKCS#10 requests as a public CA would: the request's key, subject and subjectAltNames. */
export interface TestCa {
  caPem: string;
  /** The leaf for `csrPem` (PEM), valid from an hour ago for a day; throws if the request's signature is bad. */
  certify(csrPem: string): Promise<string>;
}

export async function createTestCa(name = 'CN=Test request-signing CA'): Promise<TestCa> {
  const { certificate: ca, keys } = await selfSignedCa(name);
  let serial = 0x10;
  return {
    caPem: ca.toString('pem'),
    async certify(csrPem) {
      const request = new x509.Pkcs10CertificateRequest(csrPem);
      if (!(await request.verify(x509Crypto))) throw new Error('the certificate request does not verify');
      const san = request.extensions.find((e) => e instanceof x509.SubjectAlternativeNameExtension);
      const leaf = await x509.X509CertificateGenerator.create(
        {
          serialNumber: (serial++).toString(16).padStart(2, '0'),
          subject: request.subject,
          issuer: ca.subject,
          notBefore: new Date(Date.now() - 3_600_000),
          notAfter: new Date(Date.now() + 86_400_000),
          publicKey: await request.publicKey.export(x509Crypto),
          signingKey: keys.privateKey as never,
          signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } as never,
          extensions: [...(san ? [san] : []), new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
        },
        x509Crypto,
      );
      return leaf.toString('pem');
    },
  };
}

/** A CA certificate (path length 0, keyCertSign), valid from an hour ago for a day, and its ES256 key pair. */
async function selfSignedCa(
  name: string,
): Promise<{ certificate: x509.X509Certificate; keys: webcrypto.CryptoKeyPair }> {
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const certificate = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: '01',
      name,
      notBefore: new Date(Date.now() - 3_600_000),
      notAfter: new Date(Date.now() + 86_400_000),
      keys: keys as never,
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } as never,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
      ],
    },
    x509Crypto,
  );
  return { certificate, keys };
}
