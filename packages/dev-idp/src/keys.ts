import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, type CryptoKey } from 'jose';

export interface SigningKey {
  /** The private JWK handed to oidc-provider's `jwks`. */
  jwk: JWK & { kid: string };
  privateKey: CryptoKey;
}

/**
 * A fresh RS256 key per start: the development provider keeps nothing on disk, and relying parties fetch the
 * key set from `jwks_uri` anyway (OpenID Connect Core 10.1.1).
 */
export async function generateSigningKey(): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true, modulusLength: 2048 });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { jwk: { ...jwk, kid, alg: 'RS256', use: 'sig' }, privateKey };
}
