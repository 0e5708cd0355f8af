import type { JWK } from 'jose';
import { randomToken } from '../crypto/random-token.js';
import { computeAccessTokenHash } from './compute-access-token-hash.js';
import { computeJwkThumbprint } from './compute-jwk-thumbprint.js';
import { DPOP_JWT_TYPE, type DpopIssuer, type DpopProofPayload } from './dpop-types.js';
import { htuFor } from './normalize-htu.js';
import { normalizeHttpMethod } from './normalize-http-method.js';
import { curveOf, toPublicJwk } from './public-jwk.js';
import { signCompactJws } from './sign-compact-jws.js';

export interface CreateDpopProofOptions {
  /** The key that signs (spec 002 §4.3 `issuer`, a managed identifier with its signer). */
  issuer: DpopIssuer;
  httpMethod: string;
  /** The request URL; query and fragment are left out of `htu` (RFC 9449 §4.2). */
  httpUrl: string | URL;
  /** The latest server-provided nonce, when the server requires one (RFC 9449 §8). */
  nonce?: string | null;
  /** When set, the proof is bound to this access token through `ath` (RFC 9449 §4.2, §7.1). */
  accessToken?: string | null;
  /** The signer's public key when the caller holds it already (a DpopContext does); fetched otherwise. */
  publicJwk?: JWK;
  /** The proof's creation time (`iat`); the current time by default. */
  now?: Date;
}

export interface DpopProof {
  dpopProof: string;
  jwkThumbprint: string;
}

/**
 * Creates a DPoP proof JWT for one request (spec 002 §4.3, RFC 9449 §4.2): header `typ` dpop+jwt, `alg`, public
 * `jwk`; claims `jti` (128 random bits), `htm`, `htu`, `iat`, and `ath` / `nonce` when given. A proof is bound to
 * one method and URL: create a fresh one for every request.
 */
export async function createDpopProof(options: CreateDpopProofOptions): Promise<DpopProof> {
  const { signer } = options.issuer;
  const jwk = toPublicJwk(options.publicJwk ?? (await signer.publicJwk()));
  if (jwk.kty !== 'EC' || jwk.crv !== curveOf(signer.alg)) {
    throw new TypeError(`the DPoP key of "${options.issuer.identifier}" is not a ${curveOf(signer.alg)} EC key`);
  }
  const payload: DpopProofPayload = {
    jti: randomToken(16),
    htm: normalizeHttpMethod(options.httpMethod),
    htu: htuFor(options.httpUrl),
    iat: Math.floor((options.now ?? new Date()).getTime() / 1000),
  };
  if (options.accessToken !== undefined && options.accessToken !== null) {
    payload.ath = computeAccessTokenHash(options.accessToken);
  }
  if (options.nonce !== undefined && options.nonce !== null) payload.nonce = options.nonce;
  const header = { typ: DPOP_JWT_TYPE, alg: signer.alg, jwk };
  const dpopProof = await signCompactJws(signer, header, { ...payload });
  return { dpopProof, jwkThumbprint: await computeJwkThumbprint(jwk) };
}
