import { isIP } from 'node:net';
import { defineCommand, invalidRequest, type Command } from '@tessera/platform';
import { x509 } from '../crypto/certificates.js';
import type { RequestSigner } from '../crypto/request-signer.js';

export const CREATE_CERTIFICATE_REQUEST = 'bridge.request-signing.create-certificate-request';

/** RFC 1123 host names, lower or upper case, at most 253 characters, labels of 1 to 63. */
const DNS_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

function isDistinguishedName(subject: string): boolean {
  try {
    const attributes = new x509.Name(subject).toJSON();
    return (
      attributes.length > 0 &&
      attributes.every((attribute) => Object.values(attribute).every((values) => values.every((v) => v !== '')))
    );
  } catch {
    return false;
  }
}

export interface CertificateRequestInput {
  /** RFC 4514 distinguished name; default `CN=<publicBaseUrl host>`. */
  subject?: string;
  /** subjectAltName DNS names or IP addresses; default the publicBaseUrl host. */
  altNames?: string[];
}

/**
 * A PKCS#10 request for the bridge's request-signing key, for a CA to certify (operators, `npm run request-signing
 * -- csr`; docs/deployment.md): under production the x509 client identifier prefixes need the resulting chain in
 * `bridge.requestSigning.certificateChainPem`, and only the key manager holds the key. Platform administrators only;
 * audited with the subject, never a secret.
 */
export function createCertificateRequestCommand(
  signer: RequestSigner,
): Command<CertificateRequestInput, { pem: string }> {
  return defineCommand({
    id: CREATE_CERTIFICATE_REQUEST,
    access: 'admin',
    businessIds: (input) => ({ subject: input.subject ?? `CN=${signer.host}` }),
    async run(_ctx, input) {
      if (input.subject !== undefined && !isDistinguishedName(input.subject))
        throw invalidRequest(
          'The subject is not an RFC 4514 distinguished name (e.g. CN=verifier.example.com).',
          'subject',
        );
      const bad = input.altNames?.find((name) => isIP(name) === 0 && !DNS_NAME.test(name));
      if (bad !== undefined) throw invalidRequest(`${bad} is neither a DNS name nor an IP address.`, 'altNames');
      return { pem: await signer.certificateRequest(input) };
    },
  });
}
