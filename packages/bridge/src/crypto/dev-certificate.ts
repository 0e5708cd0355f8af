import 'reflect-metadata';
import { webcrypto, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { JWK } from 'jose';
import { x509, x509Crypto, type X509Crypto } from './certificates.js';

/**
 * A self-signed development certificate for the request-signing key, signed through the key manager: @peculiar/x509
 * signs with `crypto.subtle.sign`, so it is given a crypto whose `sign` forwards the to-be-signed bytes to the key
 * manager, and the private key never leaves it. The certificate holds the key manager's public key, names the
 * publicBaseUrl host as its subjectAltName (OID4VP §5.9.3 x509_san_dns) and is valid for `days`.
 */
export async function generateDevelopmentCertificate(options: {
  publicJwk: JWK;
  host: string;
  notBefore: Date;
  days: number;
  /** ECDSA P-256 with SHA-256 over `data`, IEEE P1363 (r||s), as the key manager answers. */
  sign(data: Uint8Array): Promise<Uint8Array>;
}): Promise<string> {
  const { kty, crv, x, y } = options.publicJwk;
  const publicKey = await webcrypto.subtle.importKey(
    'jwk',
    { kty, crv, x, y },
    { name: 'ECDSA', namedCurve: 'P-256' },
    true,
    ['verify'],
  );
  const subtle = webcrypto.subtle;
  const signingCrypto = {
    getRandomValues: <T extends ArrayBufferView | null>(array: T) => webcrypto.getRandomValues(array as never) as T,
    randomUUID: () => webcrypto.randomUUID(),
    subtle: new Proxy(subtle, {
      get(target, property, receiver) {
        if (property === 'sign')
          return async (_algorithm: unknown, _key: unknown, data: ArrayBuffer | ArrayBufferView) =>
            (
              await options.sign(
                ArrayBuffer.isView(data)
                  ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
                  : new Uint8Array(data),
              )
            ).slice().buffer;
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }),
  } as unknown as X509Crypto;
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
