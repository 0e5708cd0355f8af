import { webcrypto } from 'node:crypto';
import type { JWK } from 'jose';
import { x509 } from './install-x509-provider.js';
import { toPublicJwk } from '../crypto/generate-es256-key.js';
import type { Clock } from '../common/clock.js';

const ECDSA_P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING_ALGORITHM = { name: 'ECDSA', hash: 'SHA-256' } as const;
const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;
const ONE_HOUR_MS = 3600 * 1000;

export interface CertificateAuthority {
  privateJwk: JWK;
  certificatePem: string;
}

export interface SubjectAlternativeNames {
  dnsNames?: string[];
  uris?: string[];
}

async function importKeyPair(privateJwk: JWK): Promise<webcrypto.CryptoKeyPair> {
  const privateKey = await webcrypto.subtle.importKey('jwk', privateJwk as webcrypto.JsonWebKey, ECDSA_P256, true, [
    'sign',
  ]);
  const publicKey = await webcrypto.subtle.importKey(
    'jwk',
    toPublicJwk(privateJwk) as webcrypto.JsonWebKey,
    ECDSA_P256,
    true,
    ['verify'],
  );
  return { privateKey, publicKey };
}

function sanExtension(names: SubjectAlternativeNames): x509.SubjectAlternativeNameExtension {
  return new x509.SubjectAlternativeNameExtension([
    ...(names.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(names.uris ?? []).map((value) => ({ type: 'url' as const, value })),
  ]);
}

function validity(clock: Clock): { notBefore: Date; notAfter: Date } {
  const now = clock.now().getTime();
  return { notBefore: new Date(now - ONE_HOUR_MS), notAfter: new Date(now + TEN_YEARS_MS) };
}

/** A self-signed P-256 certificate authority (RFC 5280 §4.2.1.9 basicConstraints cA, §4.2.1.3 keyCertSign). */
export async function createCertificateAuthority(
  commonName: string,
  clock: Clock,
  privateJwk: JWK,
): Promise<CertificateAuthority> {
  const keys = await importKeyPair(privateJwk);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    name: `CN=${commonName}`,
    keys,
    ...validity(clock),
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { privateJwk, certificatePem: certificate.toString('pem') };
}

/** An end-entity certificate for `publicJwk` signed by `authority`, naming the subject in its SAN (RFC 5280 §4.2.1.6). */
export async function createLeafCertificate(input: {
  authority: CertificateAuthority;
  publicJwk: JWK;
  commonName: string;
  names: SubjectAlternativeNames;
  clock: Clock;
}): Promise<string> {
  const authorityKeys = await importKeyPair(input.authority.privateJwk);
  const authorityCertificate = new x509.X509Certificate(input.authority.certificatePem);
  const publicKey = await webcrypto.subtle.importKey(
    'jwk',
    toPublicJwk(input.publicJwk) as webcrypto.JsonWebKey,
    ECDSA_P256,
    true,
    ['verify'],
  );
  const certificate = await x509.X509CertificateGenerator.create({
    subject: `CN=${input.commonName}`,
    issuer: authorityCertificate.subject,
    publicKey,
    signingKey: authorityKeys.privateKey,
    ...validity(input.clock),
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      sanExtension(input.names),
      await x509.AuthorityKeyIdentifierExtension.create(authorityKeys.publicKey),
      await x509.SubjectKeyIdentifierExtension.create(publicKey),
    ],
  });
  return certificate.toString('pem');
}

/** A self-signed end-entity certificate, as a verifier without a CA would present in `x5c`. */
export async function createSelfSignedLeafCertificate(input: {
  privateJwk: JWK;
  commonName: string;
  names: SubjectAlternativeNames;
  clock: Clock;
}): Promise<string> {
  const keys = await importKeyPair(input.privateJwk);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    name: `CN=${input.commonName}`,
    keys,
    ...validity(input.clock),
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true), sanExtension(input.names)],
  });
  return certificate.toString('pem');
}
