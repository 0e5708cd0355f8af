import { createECDH } from 'node:crypto';
import { secureRandomToken } from '@tessera/platform';
import { compactDecrypt, importJWK, type JWK } from 'jose';

/**
 * The response encryption of direct_post.jwt (OID4VP §8.3; HAIP §5): a fresh ECDH-ES P-256 key per request, its
 * public half in the request's client_metadata.jwks, the private half sealed on the session. Only ECDH-ES with
 * A128GCM or A256GCM is accepted on the way back.
 */
export const RESPONSE_ENC_VALUES = ['A128GCM', 'A256GCM'] as const;
export const RESPONSE_ALG = 'ECDH-ES';

export interface ResponseKeyPair {
  publicJwk: JWK;
  privateJwk: JWK;
}

/** P-256 field elements and scalars are 32 bytes (RFC 7518 §6.2.1.2, §6.2.2.1: full length, leading zeros kept). */
const P256_BYTES = 32;

/**
 * A fresh P-256 key pair for one session. node:crypto's ECDH generates it (OpenSSL's EC key generation from its
 * CSPRNG) and hands out the raw point and scalar, which are the JWK members: no key object, no export, no trip to the
 * libuv pool, about a fifth of the CPU of generateKeyPair with a JWK export.
 */
export async function generateResponseKey(): Promise<ResponseKeyPair> {
  const ecdh = createECDH('prime256v1');
  // The uncompressed point: 0x04, then x and y at their full length.
  const point = ecdh.generateKeys();
  const x = point.subarray(1, 1 + P256_BYTES).toString('base64url');
  const y = point.subarray(1 + P256_BYTES).toString('base64url');
  // The scalar as OpenSSL gives it drops leading zero bytes; the JWK's d keeps the full length.
  const scalar = ecdh.getPrivateKey();
  const d = Buffer.concat([Buffer.alloc(P256_BYTES - scalar.length), scalar]).toString('base64url');
  const kid = secureRandomToken(12);
  const publicJwk: JWK = { kty: 'EC', crv: 'P-256', x, y, kid, use: 'enc', alg: RESPONSE_ALG };
  const privateJwk: JWK = { ...publicJwk, d };
  return { publicJwk, privateJwk };
}

/** Decrypts a compact JWE addressed to `privateJwk`; null when it is not one, or not with the accepted algorithms. */
export async function decryptResponse(jwe: string, privateJwk: JWK): Promise<string | null> {
  try {
    const key = await importJWK(privateJwk, RESPONSE_ALG);
    const { plaintext, protectedHeader } = await compactDecrypt(jwe, key, {
      keyManagementAlgorithms: [RESPONSE_ALG],
      contentEncryptionAlgorithms: [...RESPONSE_ENC_VALUES],
    });
    if (protectedHeader.kid !== undefined && protectedHeader.kid !== privateJwk.kid) return null;
    return new TextDecoder().decode(plaintext);
  } catch {
    return null;
  }
}
