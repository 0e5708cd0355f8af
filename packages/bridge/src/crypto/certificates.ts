import 'reflect-metadata';
import { createHash, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { JWK } from 'jose';

/** The Web Crypto of node, typed as @peculiar/x509 expects it (the DOM lib is not loaded here). */
export type X509Crypto = Parameters<typeof x509.cryptoProvider.set>[0];
export const x509Crypto = webcrypto as unknown as X509Crypto;
x509.cryptoProvider.set(x509Crypto);

/** Helpers over PEM chains: parsing, DER base64 for x5c (RFC 7515 §4.1.6), SANs and public-key comparison. */
export function parsePemChain(pem: string): x509.X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => new x509.X509Certificate(block));
}

/** x5c values are standard base64 of DER, not base64url. */
export const x5cOf = (chain: x509.X509Certificate[]) => chain.map((c) => Buffer.from(c.rawData).toString('base64'));

export function certificateFromX5c(value: string): x509.X509Certificate {
  return new x509.X509Certificate(Buffer.from(value, 'base64'));
}

export function dnsNames(certificate: x509.X509Certificate): string[] {
  const san = certificate.getExtension(x509.SubjectAlternativeNameExtension);
  return san ? san.names.items.filter((n) => n.type === 'dns').map((n) => n.value.toLowerCase()) : [];
}

export function uriNames(certificate: x509.X509Certificate): string[] {
  const san = certificate.getExtension(x509.SubjectAlternativeNameExtension);
  return san ? san.names.items.filter((n) => n.type === 'url').map((n) => n.value) : [];
}

/** OID4VP §5.9.3 x509_hash: base64url SHA-256 of the DER leaf certificate. */
export const x509HashOf = (certificate: x509.X509Certificate) =>
  createHash('sha256').update(Buffer.from(certificate.rawData)).digest('base64url');

export async function publicJwkOf(certificate: x509.X509Certificate): Promise<JWK> {
  const key = await certificate.publicKey.export(x509Crypto);
  return (await webcrypto.subtle.exportKey('jwk', key)) as JWK;
}

/** True when the certificate holds the public key given as JWK (EC or OKP or RSA members compared). */
export async function holdsPublicKey(certificate: x509.X509Certificate, jwk: JWK): Promise<boolean> {
  const held = await publicJwkOf(certificate);
  return (
    held.kty === jwk.kty &&
    held.crv === jwk.crv &&
    held.x === jwk.x &&
    held.y === jwk.y &&
    held.n === jwk.n &&
    held.e === jwk.e
  );
}

export { x509 };
