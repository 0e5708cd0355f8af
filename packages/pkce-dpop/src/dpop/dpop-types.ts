import type { JWK } from 'jose';

/**
 * DPoP shapes of spec 002 §2.2 and §4.3 (RFC 9449). Field names follow the spec: `issuer`, `publicJwk`,
 * `jwkThumbprint`, `dpopNonce`, `dpopProof`, `httpMethod`, `httpUrl`.
 */

/** Algorithms this package signs proofs with: ECDSA P-256 (default) and P-384 (spec 002 §4.3, RFC 7518 §3.4). */
export type DpopSigningAlg = 'ES256' | 'ES384';

/**
 * Asymmetric JWS algorithms a verifier may accept (RFC 9449 §4.3 point 5: never `none`, never a MAC). The default
 * is ES256 and ES384; the others are available for clients that a deployment chooses to admit.
 */
export type DpopVerificationAlg =
  'ES256' | 'ES384' | 'ES512' | 'PS256' | 'PS384' | 'PS512' | 'RS256' | 'RS384' | 'RS512' | 'EdDSA' | 'Ed25519';

export const DPOP_VERIFICATION_ALGS: readonly DpopVerificationAlg[] = [
  'ES256',
  'ES384',
  'ES512',
  'PS256',
  'PS384',
  'PS512',
  'RS256',
  'RS384',
  'RS512',
  'EdDSA',
  'Ed25519',
];

export const DEFAULT_DPOP_ALGS: readonly DpopVerificationAlg[] = ['ES256', 'ES384'];

/** The proof JWT's `typ` (RFC 9449 §4.2, spec 002 §9). */
export const DPOP_JWT_TYPE = 'dpop+jwt';

/**
 * Signs proofs without exposing the private key: a key-management alias (see dpopSignerFromKeyManager) or an
 * in-memory WebCrypto key (see generateDpopKeyPair). `sign` returns the JWS signature, for ECDSA the IEEE P1363
 * r||s form (RFC 7518 §3.4).
 */
export interface DpopKeySigner {
  readonly alg: DpopSigningAlg;
  publicJwk(): Promise<JWK>;
  sign(data: Uint8Array): Promise<Uint8Array>;
}

/** The managed identifier of spec 002 §2.2: method KEY_ALIAS, identifier = key alias. */
export interface ManagedIdentifier {
  method: 'KEY_ALIAS';
  identifier: string;
}

/** The key that signs proofs, named as spec 002 does (`issuer`), with the signer that can use it. */
export interface DpopIssuer extends ManagedIdentifier {
  signer: DpopKeySigner;
}

/**
 * Client-side DPoP state (spec 002 §2.2). `dpopNonce` holds the latest `DPoP-Nonce` a server sent (RFC 9449 §8);
 * the token functions of this package update it in place from every response, so that the next proof uses it.
 * One context serves one server (nonces are per server).
 */
export interface DpopContext {
  publicJwk: JWK;
  issuer: DpopIssuer;
  jwkThumbprint: string;
  dpopNonce: string | null;
}

/** Protected header of a proof (RFC 9449 §4.2). */
export interface DpopProofHeader {
  typ: string;
  alg: string;
  jwk: JWK;
}

/** Claims of a proof (RFC 9449 §4.2): `ath` only when bound to an access token, `nonce` only when required. */
export interface DpopProofPayload {
  jti: string;
  htm: string;
  htu: string;
  iat: number;
  ath?: string;
  nonce?: string;
}
