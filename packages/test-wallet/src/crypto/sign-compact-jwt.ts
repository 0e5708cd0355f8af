import { CompactSign, importJWK, type JWK, type JWSHeaderParameters } from 'jose';
import { encodeJsonBase64Url } from '../common/base64url.js';

export interface SignCompactJwtInput {
  header: JWSHeaderParameters & { alg: string };
  payload: Record<string, unknown>;
  privateJwk: JWK;
}

/** Signs a JWS compact serialization (RFC 7515 §7.1) with exactly the header given, so typ and kid stay in our hands. */
export async function signCompactJwt({ header, payload, privateJwk }: SignCompactJwtInput): Promise<string> {
  const key = await importJWK(privateJwk, header.alg);
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader(header).sign(key);
}

/** An unsecured JWT (`alg: none`, RFC 7519 §6): only ever produced as a hostile variant for verifier tests. */
export function encodeUnsecuredJwt(header: Record<string, unknown>, payload: Record<string, unknown>): string {
  return `${encodeJsonBase64Url({ ...header, alg: 'none' })}.${encodeJsonBase64Url(payload)}.`;
}
