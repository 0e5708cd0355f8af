import { randomBytes } from 'node:crypto';
import { compactDecrypt, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';

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

export async function generateResponseKey(): Promise<ResponseKeyPair> {
  const { publicKey, privateKey } = await generateKeyPair(RESPONSE_ALG, { crv: 'P-256', extractable: true });
  const kid = randomBytes(12).toString('base64url');
  const publicJwk = { ...(await exportJWK(publicKey)), kid, use: 'enc', alg: RESPONSE_ALG };
  const privateJwk = { ...(await exportJWK(privateKey)), kid, use: 'enc', alg: RESPONSE_ALG };
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
