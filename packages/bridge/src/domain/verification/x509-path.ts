import { x509, x509Crypto } from '../../crypto/certificates.js';

/**
 * Path building (RFC 5280 §6, RFC 4158) with @peculiar/x509's `X509ChainBuilder`: from the leaf, each issuer is
 * the candidate whose subject equals the certificate's issuer name, whose subjectKeyIdentifier matches the
 * authorityKeyIdentifier when both are present, and whose key verifies the certificate's signature. Candidates are
 * the other x5c certificates and the pinned anchor, in any order. The path ends at the anchor: a path that does not
 * reach it is no path; a pinned anchor need not be a root.
 */
export type BuiltPath = { ok: true; path: x509.X509Certificate[] } | { ok: false; reason: string };

export const sameCertificate = (a: x509.X509Certificate, b: x509.X509Certificate) =>
  Buffer.from(a.rawData).equals(Buffer.from(b.rawData));

export async function buildPath(chain: x509.X509Certificate[], anchor: x509.X509Certificate): Promise<BuiltPath> {
  const leaf = chain[0]!;
  // The x5c header may end with the anchor itself, or be the anchor alone: it is trusted as configured.
  if (sameCertificate(leaf, anchor)) return { ok: true, path: [anchor] };
  const candidates = [...chain.slice(1).filter((c) => !sameCertificate(c, anchor)), anchor];
  let built: x509.X509Certificate[];
  try {
    built = [...(await new x509.X509ChainBuilder({ certificates: candidates }).build(leaf, x509Crypto))];
  } catch {
    return { ok: false, reason: 'the x5c chain loops' };
  }
  // The path stops at the anchor, whatever the header carries above it.
  const end = built.findIndex((c) => sameCertificate(c, anchor));
  if (end >= 0) return { ok: true, path: built.slice(0, end + 1) };
  // Say which certificate broke the path when one of the candidates bears its issuer's name but not its signature.
  const last = built[built.length - 1]!;
  const named = candidates.some((c) => c.subject === last.issuer && !sameCertificate(c, last));
  const index = chain.findIndex((c) => sameCertificate(c, last));
  return named
    ? { ok: false, reason: `certificate ${index} of the x5c chain is not signed by its issuer` }
    : { ok: false, reason: 'the x5c chain does not lead to a trusted anchor' };
}
