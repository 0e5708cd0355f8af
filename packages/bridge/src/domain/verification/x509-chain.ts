import type { JWK } from 'jose';
import {
  certificateFromX5c,
  dnsNames,
  parsePemChain,
  publicJwkOf,
  uriNames,
  type x509,
} from '../../crypto/certificates.js';
import { nameConstraintViolation } from './x509-name-constraints.js';
import { buildPath } from './x509-path.js';
import { issuerConstraints, leafUsage, unknownCriticalExtension } from './x509-usage.js';

/**
 * X.509 issuer trust (SD-JWT VC §3.5 "x5c"; RFC 5280 §6 path validation against a pinned anchor): the path is
 * built from the header's certificates to the configured trust anchor with @peculiar/x509's chain builder (names,
 * key identifiers, signatures), then validated: every certificate within its validity at `now`, give or take the
 * tolerated clock skew; no unknown critical extension; every issuing certificate a CA whose keyUsage (when present)
 * allows keyCertSign, within its pathLenConstraint and name constraints; the leaf's keyUsage (when present) allows
 * digitalSignature and it carries the configured extended key usages; and the leaf names the `iss` value as a URI
 * subjectAltName (or, for an https issuer, its host as a DNS subjectAltName).
 */
export type ChainResult = { ok: true; leafJwk: JWK } | { ok: false; reason: string };

/** The instant of the check and the clock skew tolerated, as for every other time of a presentation (000 §2.2). */
export interface CheckTime {
  now: Date;
  skewSeconds: number;
}

/** What the trusted-issuer entry asks of the leaf beyond the path (config `trustedIssuers[].extendedKeyUsage`). */
export interface LeafPolicy {
  /** OIDs the leaf's extKeyUsage must all carry; absent or empty: no EKU is required. */
  extendedKeyUsage?: readonly string[];
}

const within = (c: x509.X509Certificate, at: CheckTime) => {
  const skewMs = at.skewSeconds * 1000;
  return c.notBefore.getTime() - skewMs <= at.now.getTime() && at.now.getTime() <= c.notAfter.getTime() + skewMs;
};

export async function validateChain(
  x5c: unknown,
  anchorPem: string,
  iss: unknown,
  at: CheckTime,
  policy: LeafPolicy = {},
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
  for (const [i, certificate] of chain.entries())
    if (!within(certificate, at))
      return { ok: false, reason: `certificate ${i} of the x5c chain is outside its validity period` };
  const built = await buildPath(chain, anchor);
  if (!built.ok) return built;
  const reason =
    unknownCriticalExtension(built.path) ??
    issuerConstraints(built.path) ??
    nameConstraintViolation(built.path) ??
    leafUsage(built.path[0]!, policy.extendedKeyUsage ?? []);
  if (reason) return { ok: false, reason };
  return leafResult(built.path[0]!, iss);
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
