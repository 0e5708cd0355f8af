import { X509Certificate } from 'node:crypto';
import { pemToDers } from './convert-pem.js';

export type ChainCheck = { trusted: true } | { trusted: false; reason: string };

/**
 * Path validation reduced to what a test wallet needs (RFC 5280 §6.1, simplified): every certificate of `x5c` is
 * within its validity period and signed by the next one, and the last one is a trust anchor or is signed by one.
 * Without trust anchors nothing can be trusted; the caller decides whether to go on with a warning.
 */
export function verifyCertificateChain(x5c: string[], trustAnchorPems: string[], now: Date): ChainCheck {
  if (x5c.length === 0) return { trusted: false, reason: 'empty x5c' };
  const chain = x5c.map((entry) => new X509Certificate(Buffer.from(entry, 'base64')));
  const anchors = trustAnchorPems.flatMap((pem) => pemToDers(pem)).map((der) => new X509Certificate(der));
  for (const certificate of chain) {
    if (now < new Date(certificate.validFrom) || now > new Date(certificate.validTo)) {
      return { trusted: false, reason: `certificate ${certificate.subject} is outside its validity period` };
    }
  }
  for (let index = 0; index + 1 < chain.length; index += 1) {
    const child = chain[index]!;
    const parent = chain[index + 1]!;
    if (!parent.ca || !child.checkIssued(parent) || !child.verify(parent.publicKey)) {
      return { trusted: false, reason: `certificate ${index} is not issued by certificate ${index + 1}` };
    }
  }
  if (anchors.length === 0) return { trusted: false, reason: 'no trust anchor configured' };
  const last = chain[chain.length - 1]!;
  const anchored = anchors.some(
    (anchor) =>
      anchor.fingerprint256 === last.fingerprint256 ||
      (anchor.ca && last.checkIssued(anchor) && last.verify(anchor.publicKey)),
  );
  return anchored ? { trusted: true } : { trusted: false, reason: 'chain does not end at a configured trust anchor' };
}
