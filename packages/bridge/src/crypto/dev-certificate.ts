import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { JWK } from 'jose';
import { x509, x509Crypto } from './certificates.js';
import { importP256PublicKey, keyManagerCrypto, type KeyManagerSign } from './key-manager-crypto.js';

/**
 * A self-signed development certificate for the request-signing key, signed through the key manager
 * (keyManagerCrypto: the private key never leaves it). The certificate holds the key manager's public key, names the
 * publicBaseUrl host as its subjectAltName (OID4VP §5.9.3 x509_san_dns) and is valid for `days`.
 */
export async function generateDevelopmentCertificate(options: {
  publicJwk: JWK;
  host: string;
  notBefore: Date;
  days: number;
  sign: KeyManagerSign;
}): Promise<string> {
  const publicKey = await importP256PublicKey(options.publicJwk);
  const signingCrypto = keyManagerCrypto(options.sign);
  const name = `CN=${options.host}, O=Tessera development`;
  const certificate = await x509.X509CertificateGenerator.create(
    {
      serialNumber: `01${randomBytes(15).toString('hex')}`,
      subject: name,
      issuer: name,
      notBefore: options.notBefore,
      notAfter: new Date(options.notBefore.getTime() + options.days * 86_400_000),
      publicKey,
      // A handle only: its algorithm (ECDSA P-256) selects the signature algorithm; the bytes are signed above.
      signingKey: publicKey,
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } as Parameters<
        typeof x509.X509CertificateGenerator.create
      >[0]['signingAlgorithm'],
      extensions: [
        new x509.SubjectAlternativeNameExtension([{ type: isIP(options.host) ? 'ip' : 'dns', value: options.host }]),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.BasicConstraintsExtension(false, undefined, true),
        await x509.SubjectKeyIdentifierExtension.create(publicKey, false, x509Crypto),
      ],
    },
    signingCrypto,
  );
  if (!(await certificate.verify({ publicKey, signatureOnly: true }, x509Crypto))) {
    throw new Error('the generated request-signing certificate does not verify under the key manager key');
  }
  return certificate.toString('pem');
}
