import type { JWK } from 'jose';

/**
 * Key management (issue 2 §11). Every signer in the system goes through this interface: private keys never
 * leave the provider. The software provider keeps them encrypted at rest under a master key; the shape admits
 * a PKCS#11 provider (graphene-pk11) and cloud KMS providers later: operations are by alias, signing takes the
 * bytes to sign, and public material is exposed as JWK.
 */
export type SigningAlgorithm = 'RS256' | 'PS256' | 'ES256' | 'ES384' | 'EdDSA';

export interface KeyInfo {
  alias: string;
  version: number;
  kid: string;
  algorithm: SigningAlgorithm;
  state: 'active' | 'retired';
  createdAt: string;
  /** Retired keys stay in published key sets until this time (tokens in flight). */
  publishUntil: string | null;
}

export interface Signature {
  kid: string;
  algorithm: SigningAlgorithm;
  /** For ES* algorithms, the IEEE P1363 (r||s) form that JWS uses. */
  signature: Uint8Array;
}

export interface KeyManager {
  /** Creates the first version of a key under `alias`; fails if the alias exists. */
  create(alias: string, algorithm: SigningAlgorithm): Promise<KeyInfo>;
  /** The active key of `alias`, created on first use. */
  ensure(alias: string, algorithm: SigningAlgorithm): Promise<KeyInfo>;
  /** Signs with the active version of `alias`. */
  sign(alias: string, data: Uint8Array): Promise<Signature>;
  /** Public JWK (with kid, alg, use) of the active version. */
  publicJwk(alias: string): Promise<JWK>;
  /** Public JWKs of every version still to be published (active first), for key-set documents. */
  publishedJwks(alias: string): Promise<JWK[]>;
  /** Public JWK of a version by kid, active or retired (signature verification of old material). */
  publicJwkByKid(kid: string): Promise<JWK | null>;
  /** New active version; the old one is retired and stays published for `retainSeconds`. */
  rotate(alias: string, options?: { retainSeconds?: number }): Promise<KeyInfo>;
  list(): Promise<KeyInfo[]>;
  /** Throws when the provider cannot serve requests. */
  health(): Promise<void>;
}
