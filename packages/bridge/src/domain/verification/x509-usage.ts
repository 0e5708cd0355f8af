import { x509 } from '../../crypto/certificates.js';

/**
 * What a path validator must check beyond signatures and names (RFC 5280 §6.1.3–§6.1.5), on a path ordered leaf
 * first and ending at the anchor. Each check answers a short reason, or null when the path passes it.
 */
type Path = readonly x509.X509Certificate[];

/**
 * Extensions this validator processes. RFC 5280 §4.2: a certificate with a critical extension that is not
 * recognised must be rejected. certificatePolicies is recognised as a relying party with the initial policy set
 * anyPolicy and no explicit policy (§6.1.1) does; policyConstraints and inhibitAnyPolicy are not processed, so
 * they are refused when critical.
 */
const RECOGNISED = new Set([
  '2.5.29.14', // subjectKeyIdentifier
  '2.5.29.15', // keyUsage
  '2.5.29.17', // subjectAltName
  '2.5.29.19', // basicConstraints
  '2.5.29.30', // nameConstraints
  '2.5.29.32', // certificatePolicies
  '2.5.29.35', // authorityKeyIdentifier
  '2.5.29.37', // extKeyUsage
]);

/** The position of a certificate in the path, for reasons (the x5c index when the path follows the header). */
const named = (path: Path, i: number) =>
  i === path.length - 1 && i > 0 ? 'the trust anchor' : i === 0 ? 'the leaf certificate' : `certificate ${i}`;

/** RFC 5280 §6.1.4 (j): a self-issued certificate is not counted against pathLenConstraint. */
const selfIssued = (c: x509.X509Certificate) => c.subject === c.issuer;

export function unknownCriticalExtension(path: Path): string | null {
  for (const [i, certificate] of path.entries()) {
    const unknown = certificate.extensions.find((e) => e.critical && !RECOGNISED.has(e.type));
    if (unknown) return `${named(path, i)} has an unknown critical extension (${unknown.type})`;
  }
  return null;
}

/** §6.1.4 (k), (l), (m), (n): every issuing certificate is a CA allowed to sign certificates, within its path length. */
export function issuerConstraints(path: Path): string | null {
  for (let i = 1; i < path.length; i++) {
    const certificate = path[i]!;
    const basic = certificate.getExtension(x509.BasicConstraintsExtension);
    if (basic?.ca !== true) return `the issuer of certificate ${i - 1} is not a CA`;
    const usage = certificate.getExtension(x509.KeyUsagesExtension);
    if (usage && (usage.usages & x509.KeyUsageFlags.keyCertSign) === 0)
      return `the issuer of certificate ${i - 1} may not sign certificates (keyUsage without keyCertSign)`;
    if (basic.pathLength !== undefined) {
      // Intermediate certificates below this one, the leaf excluded.
      const below = path.slice(1, i).filter((c) => !selfIssued(c)).length;
      if (below > basic.pathLength) return `the path length constraint of ${named(path, i)} is exceeded`;
    }
  }
  return null;
}

/**
 * The leaf signs credentials and status lists: with a keyUsage it must allow digitalSignature (§4.2.1.3); with
 * configured extended key usages it must carry every one of them (§4.2.1.12; anyExtendedKeyUsage does not stand
 * in for a purpose the relying party names).
 */
export function leafUsage(leaf: x509.X509Certificate, extendedKeyUsage: readonly string[]): string | null {
  const usage = leaf.getExtension(x509.KeyUsagesExtension);
  if (usage && (usage.usages & x509.KeyUsageFlags.digitalSignature) === 0)
    return 'the leaf certificate may not sign (keyUsage without digitalSignature)';
  if (extendedKeyUsage.length === 0) return null;
  const carried = new Set((leaf.getExtension(x509.ExtendedKeyUsageExtension)?.usages ?? []).map(String));
  const missing = extendedKeyUsage.find((oid) => !carried.has(oid));
  return missing === undefined ? null : `the leaf certificate lacks the extended key usage ${missing}`;
}
