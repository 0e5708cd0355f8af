import { x509 } from './install-x509-provider.js';

export interface CertificateNames {
  sanDnsNames: string[];
  sanUriNames: string[];
}

/** The dNSName and uniformResourceIdentifier entries of the subjectAltName extension (RFC 5280 §4.2.1.6). */
export function readCertificateNames(derBase64: string): CertificateNames {
  const certificate = new x509.X509Certificate(Buffer.from(derBase64, 'base64'));
  const san = certificate.getExtension(x509.SubjectAlternativeNameExtension);
  const items = san?.names.items ?? [];
  return {
    sanDnsNames: items.filter((item) => item.type === 'dns').map((item) => item.value),
    sanUriNames: items.filter((item) => item.type === 'url').map((item) => item.value),
  };
}
