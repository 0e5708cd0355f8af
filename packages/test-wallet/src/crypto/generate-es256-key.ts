import { exportJWK, generateKeyPair, type JWK } from 'jose';

/** A fresh extractable P-256 key pair as a private JWK (ES256, RFC 7518 §3.4). */
export async function generateEs256Key(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return exportJWK(privateKey);
}

/** The public members of a JWK only (RFC 7517 §4, RFC 7518 §6), in a stable member order. */
export function toPublicJwk(jwk: JWK): JWK {
  if (jwk.kty === 'EC') return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
  if (jwk.kty === 'OKP') return { kty: jwk.kty, crv: jwk.crv, x: jwk.x };
  if (jwk.kty === 'RSA') return { kty: jwk.kty, n: jwk.n, e: jwk.e };
  throw new Error(`unsupported key type ${String(jwk.kty)}`);
}
