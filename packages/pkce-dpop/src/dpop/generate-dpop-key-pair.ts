import type { webcrypto } from 'node:crypto';
import type { JWK } from 'jose';
import type { DpopKeySigner, DpopSigningAlg } from './dpop-types.js';
import { curveOf, toPublicJwk } from './public-jwk.js';

/**
 * An in-memory ECDSA key pair for DPoP (spec 002 §4.3 key generation: ECDSA_SHA256 by default). The private key
 * is a non-extractable WebCrypto key: it signs, and cannot be exported. WebCrypto ECDSA signatures are already in
 * the r||s form JWS uses (RFC 7518 §3.4).
 */
export async function generateDpopKeyPair(alg: DpopSigningAlg = 'ES256'): Promise<DpopKeySigner> {
  const namedCurve = curveOf(alg);
  const keyPair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve }, false, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  const publicJwk = toPublicJwk((await crypto.subtle.exportKey('jwk', keyPair.publicKey)) as JWK);
  const hash = alg === 'ES256' ? 'SHA-256' : 'SHA-384';
  return {
    alg,
    publicJwk: async () => ({ ...publicJwk }),
    sign: async (data) => new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash }, keyPair.privateKey, data)),
  };
}
