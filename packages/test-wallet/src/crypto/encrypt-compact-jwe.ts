import { CompactEncrypt, importJWK, type JWK } from 'jose';
import { decodeBase64Url } from '../common/base64url.js';

export interface EncryptCompactJweInput {
  publicJwk: JWK;
  /** Key management algorithm; HAIP 1.0 asks for ECDH-ES with P-256. */
  alg: string;
  /** Content encryption; HAIP 1.0 lists A128GCM and A256GCM. */
  enc: string;
  /** base64url agreement PartyUInfo / PartyVInfo (RFC 7518 §4.6.1.2–3), optional. */
  apu?: string;
  apv?: string;
}

/** JWE compact serialization (RFC 7516 §7.1); `kid` copied from the recipient key so the verifier finds its key. */
export async function encryptCompactJwe(input: EncryptCompactJweInput, plaintext: string): Promise<string> {
  const key = await importJWK(input.publicJwk, input.alg);
  const header = { alg: input.alg, enc: input.enc, ...(input.publicJwk.kid ? { kid: input.publicJwk.kid } : {}) };
  const encrypter = new CompactEncrypt(new TextEncoder().encode(plaintext)).setProtectedHeader(header);
  if (input.apu || input.apv) {
    encrypter.setKeyManagementParameters({
      ...(input.apu ? { apu: decodeBase64Url(input.apu) } : {}),
      ...(input.apv ? { apv: decodeBase64Url(input.apv) } : {}),
    });
  }
  return encrypter.encrypt(key);
}
