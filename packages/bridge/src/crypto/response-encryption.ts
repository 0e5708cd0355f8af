import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { compactDecrypt, importJWK, type JWK } from 'jose';

const generateEcKeyPair = promisify(generateKeyPair);

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

/**
 * A fresh P-256 key pair for one session. node:crypto generates it on the libuv pool and exports the JWK members
 * directly: a third of the CPU of the same key through WebCrypto (jose), and none of it on the event loop.
 */
export async function generateResponseKey(): Promise<ResponseKeyPair> {
  const { privateKey } = await generateEcKeyPair('ec', { namedCurve: 'P-256' });
  const { crv, x, y, d } = privateKey.export({ format: 'jwk' });
  const kid = randomBytes(12).toString('base64url');
  const publicJwk: JWK = { kty: 'EC', crv, x, y, kid, use: 'enc', alg: RESPONSE_ALG };
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
