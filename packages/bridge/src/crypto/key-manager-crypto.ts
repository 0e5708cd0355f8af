import { webcrypto } from 'node:crypto';
import type { JWK } from 'jose';
import type { X509Crypto } from './certificates.js';

/** ECDSA P-256 with SHA-256 over `data`, IEEE P1363 (r||s), as the key manager answers. */
export type KeyManagerSign = (data: Uint8Array) => Promise<Uint8Array>;

/**
 * A Web Crypto for @peculiar/x509 whose `subtle.sign` forwards the to-be-signed bytes to the key manager and ignores
 * the key handle it is given: certificates and certificate requests are signed by the key manager's key, whose
 * private part never leaves it. Everything else is node's Web Crypto.
 */
export function keyManagerCrypto(sign: KeyManagerSign): X509Crypto {
  const subtle = webcrypto.subtle;
  return {
    getRandomValues: <T extends ArrayBufferView | null>(array: T) => webcrypto.getRandomValues(array as never) as T,
    randomUUID: () => webcrypto.randomUUID(),
    subtle: new Proxy(subtle, {
      get(target, property, receiver) {
        if (property === 'sign')
          return async (_algorithm: unknown, _key: unknown, data: ArrayBuffer | ArrayBufferView) =>
            (
              await sign(
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
}

/** The key manager's public JWK as a Web Crypto key (ECDSA P-256): a certificate's key, and the signing handle. */
export function importP256PublicKey(publicJwk: JWK): Promise<webcrypto.CryptoKey> {
  const { kty, crv, x, y } = publicJwk;
  return webcrypto.subtle.importKey('jwk', { kty, crv, x, y }, { name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'verify',
  ]);
}
