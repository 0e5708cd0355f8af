import type { JWK } from 'jose';
import {
  certificateFromX5c,
  dnsNames,
  parsePemChain,
  publicJwkOf,
  uriNames,
  x509,
  x509Crypto,
} from '../../crypto/certificates.js';

/**
 * X.509 issuer trust (SD-JWT VC §3.5 "x5c"; RFC 5280 path validation, reduced to what a pinned anchor needs): the
 * header chain must lead, certificate by certificate, to the configured trust anchor; every certificate must be
 * within its validity at `now`, give or take the tolerated clock skew; every issuing certificate must be a CA; and the leaf must name the `iss` value as a
 * URI subjectAltName (or, for an https issuer, its host as a DNS subjectAltName).
 */
export type ChainResult = { ok: true; leafJwk: JWK } | { ok: false; reason: string };

/** The instant of the check and the clock skew tolerated, as for every other time of a presentation (000 §2.2). */
export interface CheckTime {
  now: Date;
  skewSeconds: number;
}

const within = (c: x509.X509Certificate, at: CheckTime) => {
  const skewMs = at.skewSeconds * 1000;
  return c.notBefore.getTime() - skewMs <= at.now.getTime() && at.now.getTime() <= c.notAfter.getTime() + skewMs;
};
const isCa = (c: x509.X509Certificate) => c.getExtension(x509.BasicConstraintsExtension)?.ca === true;
const sameCertificate = (a: x509.X509Certificate, b: x509.X509Certificate) =>
  Buffer.from(a.rawData).equals(Buffer.from(b.rawData));

async function signedBy(child: x509.X509Certificate, parent: x509.X509Certificate): Promise<boolean> {
  try {
    return await child.verify({ publicKey: parent.publicKey, signatureOnly: true }, x509Crypto);
  } catch {
    return false;
  }
}

export async function validateChain(
  x5c: unknown,
  anchorPem: string,
  iss: unknown,
  at: CheckTime,
): Promise<ChainResult> {
  if (!Array.isArray(x5c) || x5c.length === 0 || x5c.length > 5 || !x5c.every((v) => typeof v === 'string'))
    return { ok: false, reason: 'the x5c header is missing or malformed' };
  let chain: x509.X509Certificate[];
  let anchor: x509.X509Certificate;
  try {
    chain = (x5c as string[]).map(certificateFromX5c);
    const anchors = parsePemChain(anchorPem);
    if (anchors.length !== 1) return { ok: false, reason: 'the configured trust anchor is not one PEM certificate' };
    anchor = anchors[0]!;
  } catch {
    return { ok: false, reason: 'the x5c chain cannot be parsed' };
  }
  if (!within(anchor, at)) return { ok: false, reason: 'the trust anchor is outside its validity period' };
  for (const [i, certificate] of chain.entries()) {
    if (!within(certificate, at))
      return { ok: false, reason: `certificate ${i} of the x5c chain is outside its validity period` };
    if (sameCertificate(certificate, anchor)) {
      // The chain may end with the anchor itself; then it is trusted as configured.
      if (i === 0) return leafResult(certificate, iss);
      break;
    }
    const parent = chain[i + 1] ?? anchor;
    if (!isCa(parent)) return { ok: false, reason: `the issuer of certificate ${i} is not a CA` };
    if (!(await signedBy(certificate, parent)))
      return { ok: false, reason: `certificate ${i} of the x5c chain is not signed by its issuer` };
    if (parent === anchor) break;
  }
  const last = chain[chain.length - 1]!;
  if (!sameCertificate(last, anchor) && !(await signedBy(last, anchor)))
    return { ok: false, reason: 'the x5c chain does not lead to a trusted anchor' };
  return leafResult(chain[0]!, iss);
}

async function leafResult(leaf: x509.X509Certificate, iss: unknown): Promise<ChainResult> {
  if (typeof iss !== 'string') return { ok: false, reason: 'the credential has no iss to match the certificate' };
  let host: string | null = null;
  try {
    const url = new URL(iss);
    host = url.protocol === 'https:' ? url.hostname.toLowerCase() : null;
  } catch {
    host = null;
  }
  const named = uriNames(leaf).includes(iss) || (host !== null && dnsNames(leaf).includes(host));
  if (!named) return { ok: false, reason: 'the leaf certificate does not name the credential issuer' };
  return { ok: true, leafJwk: await publicJwkOf(leaf) };
}
