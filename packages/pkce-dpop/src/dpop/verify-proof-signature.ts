import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { invalidProof } from './dpop-error.js';

/**
 * The signature check of a DPoP proof (RFC 9449 §4.3 points 5–6) with node:crypto: the embedded public JWK is
 * imported once per key (a client reuses its DPoP key for many proofs) and the ES256/ES384 signature, in the JWS
 * form r||s (RFC 7518 §3.4), is verified synchronously. Together with the thumbprint below this made proof
 * verification several times cheaper than importing the key and verifying through WebCrypto for every proof.
 */
const HASH: Record<string, { hash: string; size: number; crv: string }> = {
  ES256: { hash: 'sha256', size: 64, crv: 'P-256' },
  ES384: { hash: 'sha384', size: 96, crv: 'P-384' },
};
const MAX_KEYS = 10_000;

/** An imported proof key and its RFC 7638 thumbprint, both pure functions of (crv, x, y). */
interface KnownKey {
  key: KeyObject;
  thumbprint: string;
}
/**
 * Keyed by the JWK's crv, x and y (the whole of an EC public key), so that a known key costs neither an import
 * nor the SHA-256 of its thumbprint; insertion-ordered, the oldest dropped when full.
 */
const keys = new Map<string, KnownKey>();

/** RFC 7638 thumbprint of an EC public JWK (required members crv, kty, x, y in lexicographic order). */
export function ecJwkThumbprint(jwk: Record<string, unknown>): string {
  const canonical = `{"crv":${JSON.stringify(jwk.crv)},"kty":${JSON.stringify(jwk.kty)},"x":${JSON.stringify(jwk.x)},"y":${JSON.stringify(jwk.y)}}`;
  return createHash('sha256').update(canonical).digest('base64url');
}

/** The proof's embedded key, imported (or known already), with its thumbprint; throws invalid_jwk. */
export function proofKey(jwk: Record<string, unknown>, alg: string): KnownKey {
  const expected = HASH[alg];
  // Checked for every proof, cached key or not: the key type and curve must be those of the proof's alg.
  if (
    !expected ||
    jwk.kty !== 'EC' ||
    jwk.crv !== expected.crv ||
    typeof jwk.x !== 'string' ||
    typeof jwk.y !== 'string'
  ) {
    throw invalidProof('invalid_jwk', 'DPoP proof jwk is not a usable public key for its alg');
  }
  const cacheKey = `${jwk.crv}.${jwk.x}.${jwk.y}`;
  let known = keys.get(cacheKey);
  if (known) return known;
  let key: KeyObject;
  try {
    key = createPublicKey({ key: { kty: 'EC', crv: jwk.crv, x: jwk.x, y: jwk.y }, format: 'jwk' });
  } catch (cause) {
    throw invalidProof('invalid_jwk', 'DPoP proof jwk is not a usable public key for its alg', cause);
  }
  known = { key, thumbprint: ecJwkThumbprint(jwk) };
  if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value!);
  keys.set(cacheKey, known);
  return known;
}

/** True when the compact JWS `proof` is signed by `key` (ES256 or ES384, the JWS form r||s). */
export function proofSignatureVerifies(proof: string, key: KeyObject, alg: string): boolean {
  const dot = proof.lastIndexOf('.');
  const signature = Buffer.from(proof.slice(dot + 1), 'base64url');
  if (signature.length !== HASH[alg]!.size) return false;
  try {
    return verify(
      HASH[alg]!.hash,
      Buffer.from(proof.slice(0, dot), 'ascii'),
      { key, dsaEncoding: 'ieee-p1363' },
      signature,
    );
  } catch {
    // A signature OpenSSL cannot even parse does not verify.
    return false;
  }
}
