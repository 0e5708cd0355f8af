import { X509Certificate } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { BoundedCache } from './bounded-cache.js';
import { badRequest } from './errors.js';

/**
 * X.509 certificates of key entries (002 §2.1 Certificate): parsing, the wire view, and the checks of operation 5:
 * the chain in order (each certificate issued and signed by the next), every certificate within its validity, and
 * a signing certificate whose key usage allows signatures (RFC 5280 §4.2.1.3).
 */
export interface CertificateView {
  value: string;
  fingerPrint: string;
  serialNumber: string;
  issuerDN: string;
  subjectDN: string;
  notBefore: string;
  notAfter: string;
  keyUsage: string[];
}

const KEY_USAGES = [
  'DIGITAL_SIGNATURE',
  'NON_REPUDIATION',
  'KEY_ENCIPHERMENT',
  'DATA_ENCIPHERMENT',
  'KEY_AGREEMENT',
  'KEY_CERT_SIGN',
  'CRL_SIGN',
  'ENCIPHER_ONLY',
  'DECIPHER_ONLY',
];

export function parseCertificate(base64: string, field: string): X509Certificate {
  const der = Buffer.from(base64, 'base64');
  try {
    if (der.length === 0) throw new Error('empty');
    return new X509Certificate(der);
  } catch {
    throw badRequest(`${field} is not a base64 DER X.509 certificate.`, field);
  }
}

/** The key usages the certificate names, or null when it has no key-usage extension. */
export function keyUsages(certificate: X509Certificate): string[] | null {
  const parsed = pkijs.Certificate.fromBER(new Uint8Array(certificate.raw));
  const extension = parsed.extensions?.find((e) => e.extnID === '2.5.29.15');
  if (!extension) return null;
  const bits = asn1js.fromBER(extension.extnValue.valueBlock.valueHexView).result as asn1js.BitString;
  const bytes = bits.valueBlock.valueHexView;
  return KEY_USAGES.filter((_, i) => ((bytes[i >> 3] ?? 0) >> (7 - (i & 7))) & 1);
}

/** DNs in RFC 4514 order (most specific first), from node's line-per-attribute form. */
const dn = (text: string) => text.split('\n').filter(Boolean).reverse().join(', ');

const views = new BoundedCache<CertificateView>(512);

/** The wire view of a DER certificate (computed once per certificate). */
export function certificateView(der: Buffer): CertificateView {
  return views.get(der.toString('base64'), () => computeView(der));
}

function computeView(der: Buffer): CertificateView {
  const certificate = new X509Certificate(der);
  return {
    value: der.toString('base64'),
    fingerPrint: certificate.fingerprint256,
    serialNumber: certificate.serialNumber,
    issuerDN: dn(certificate.issuer),
    subjectDN: dn(certificate.subject),
    notBefore: new Date(certificate.validFrom).toISOString().replace('Z', '+00:00'),
    notAfter: new Date(certificate.validTo).toISOString().replace('Z', '+00:00'),
    keyUsage: keyUsages(certificate) ?? [],
  };
}

export function checkCertificateChain(
  leaf: X509Certificate,
  chain: readonly X509Certificate[],
  now: Date,
  skewSeconds: number,
): void {
  const all = [leaf, ...chain];
  all.forEach((certificate, index) => {
    const field = index === 0 ? 'certificate' : `certificateChain.${index - 1}`;
    const notBefore = new Date(certificate.validFrom).getTime();
    const notAfter = new Date(certificate.validTo).getTime();
    if (now.getTime() + skewSeconds * 1000 < notBefore)
      throw badRequest(`${field} is not valid before ${new Date(notBefore).toISOString()}.`, field);
    if (now.getTime() - skewSeconds * 1000 > notAfter)
      throw badRequest(`${field} expired on ${new Date(notAfter).toISOString()}.`, field);
    const issuer = all[index + 1];
    if (issuer && !(certificate.checkIssued(issuer) && certificate.verify(issuer.publicKey)))
      throw badRequest(
        `${field} is not issued by the next certificate of the chain: the chain must be in order, signer first.`,
        field,
      );
  });
  const usages = keyUsages(leaf);
  if (usages && !usages.includes('DIGITAL_SIGNATURE') && !usages.includes('NON_REPUDIATION'))
    throw badRequest('The certificate does not allow digital signatures (key usage).', 'certificate');
}
