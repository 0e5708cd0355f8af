import 'reflect-metadata';
import { isIP } from 'node:net';
import type { JWK } from 'jose';
import { x509, x509Crypto } from './certificates.js';
import { importP256PublicKey, keyManagerCrypto, type KeyManagerSign } from './key-manager-crypto.js';

/**
 * A PKCS#10 certificate signing request (RFC 2986) for the request-signing key, signed through the key manager: what
 * an operator hands a CA to obtain `bridge.requestSigning.certificateChainPem` under production. It holds the key
 * manager's public key, the subject and, as a requested extension, the subjectAltNames the wallet checks
 * (OID4VP §5.9.3 x509_san_dns: the publicBaseUrl host), key usage digitalSignature, and no CA flag.
 */
export async function createSigningRequest(options: {
  publicJwk: JWK;
  /** RFC 4514 distinguished name, e.g. `CN=verifier.example.com, O=Example University`. */
  subject: string;
  /** DNS names or IP addresses for the subjectAltName extension. */
  altNames: readonly string[];
  sign: KeyManagerSign;
}): Promise<string> {
  const publicKey = await importP256PublicKey(options.publicJwk);
  const request = await x509.Pkcs10CertificateRequestGenerator.create(
    {
      name: options.subject,
      // A handle only: its algorithm (ECDSA P-256) selects the signature algorithm; the bytes are signed by `sign`.
      keys: { publicKey, privateKey: publicKey } as unknown as Parameters<
        typeof x509.Pkcs10CertificateRequestGenerator.create
      >[0]['keys'],
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } as Parameters<
        typeof x509.Pkcs10CertificateRequestGenerator.create
      >[0]['signingAlgorithm'],
      extensions: [
        ...(options.altNames.length > 0
          ? [
              new x509.SubjectAlternativeNameExtension(
                options.altNames.map((name) => ({
                  type: isIP(name) ? ('ip' as const) : ('dns' as const),
                  value: name,
                })),
              ),
            ]
          : []),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.BasicConstraintsExtension(false, undefined, true),
      ],
    },
    keyManagerCrypto(options.sign),
  );
  if (!(await request.verify(x509Crypto))) {
    throw new Error('the certificate request does not verify under the key manager key');
  }
  return request.toString('pem');
}
