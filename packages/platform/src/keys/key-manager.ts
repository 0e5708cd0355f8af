import type { JWK } from 'jose';
import type { JoinedUnit } from '../commands/command.js';
import type { Sql } from '../db/database.js';

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

/**
 * One version of a signing key as the provider holds it ready: what a JWS header names and the signing operation of
 * that same version. A header read from it and the signature made with it always agree, even when the alias rotates
 * in between (the version signed with was active when it was read, and a retired version stays published).
 */
export interface ActiveSigningKey {
  readonly kid: string;
  readonly algorithm: SigningAlgorithm;
  /** Shared and frozen: copy it before changing it. */
  readonly publicJwk: Readonly<JWK>;
  /** Signs with this version, whichever is active by then. */
  sign(data: Uint8Array): Promise<Signature>;
}

export interface KeyManager extends SymmetricKeyManager {
  /** Creates the first version of a key under `alias`; fails if the alias exists. */
  create(alias: string, algorithm: SigningAlgorithm): Promise<KeyInfo>;
  /** The active key of `alias`, created on first use. */
  ensure(alias: string, algorithm: SigningAlgorithm): Promise<KeyInfo>;
  /** Signs with the active version of `alias`. */
  sign(alias: string, data: Uint8Array): Promise<Signature>;
  /** The active version of `alias`, for a header and a signature under one kid (signJwt). */
  activeSigningKey(alias: string): Promise<ActiveSigningKey>;
  /**
   * The same without waiting, when the provider already holds the active version and need not look for a rotation
   * now; otherwise undefined (then call activeSigningKey). A signing request makes several key calls: answered from
   * memory, they need neither a promise chain nor a copy each.
   */
  readyActiveSigningKey(alias: string): ActiveSigningKey | undefined;
  /** Public JWK (with kid, alg, use) of the active version. */
  publicJwk(alias: string): Promise<JWK>;
  /** Public JWKs of every version still to be published (active first), for key-set documents. */
  publishedJwks(alias: string): Promise<JWK[]>;
  /** Public JWK of a version by kid, active or retired (signature verification of old material). */
  publicJwkByKid(kid: string): Promise<JWK | null>;
  /**
   * New active version; the old one is retired and stays published for `retainSeconds`. With `unit` (the caller's
   * unit of work: the rotation commits with its audit event, issue 13 §7) the key rows are written through it, and
   * this process signs with the new version once the unit has committed.
   */
  rotate(alias: string, options?: { retainSeconds?: number; unit?: JoinedUnit | undefined }): Promise<KeyInfo>;
  list(): Promise<KeyInfo[]>;
  /** Throws when the provider cannot serve requests. */
  health(): Promise<void>;
}

/**
 * Symmetric keys (issue 5 §5): HMAC keys for lookup indexes (HS256, RFC 7518 §3.2) and key-encryption keys for
 * envelope encryption (A256GCM, RFC 7518 §4.7). Like signing keys they live under an alias, in versions, one of them
 * active; unlike them, a new version can wait as `pending` until a re-encryption has caught up (a key migration),
 * and only an HS256 key created `exportable` ever leaves the provider (a shared lookup key, 000 §4.3).
 */
export type SymmetricAlgorithm = 'HS256' | 'A256GCM';

export type SymmetricKeyState = 'pending' | 'active' | 'retired';

export interface SymmetricKeyInfo {
  alias: string;
  version: number;
  kid: string;
  algorithm: SymmetricAlgorithm;
  state: SymmetricKeyState;
  exportable: boolean;
  createdAt: string;
  activatedAt: string | null;
  retiredAt: string | null;
}

export interface Mac {
  kid: string;
  version: number;
  /** HMAC-SHA256 output, 32 bytes. */
  mac: Uint8Array;
}

export interface EncryptedData {
  kid: string;
  version: number;
  /**
   * A compact envelope `e1.<kid>.<wrapped data key>.<iv>.<ciphertext>.<tag>` (base64url parts): the data is
   * encrypted under a fresh data key, and the data key is wrapped under the key-encryption key named by kid.
   */
  ciphertext: string;
}

export interface DecryptedData {
  alias: string;
  version: number;
  kid: string;
  plaintext: Uint8Array;
}

export interface SymmetricCallOptions {
  /**
   * The caller's open unit of work. A provider that keeps its keys in the database reads (and creates) key rows
   * through it instead of opening a unit of its own: on the embedded database, which has one connection, a second
   * unit would wait for the caller's forever; on PostgreSQL it would take a second pooled connection. Key material
   * first seen in a row that this same transaction wrote is used but not cached, since the row may yet roll back.
   * Providers that hold keys elsewhere ignore it.
   */
  sql?: Sql | undefined;
}

export interface SymmetricKeyManager {
  /** The active version of `alias`, created (active, version 1) on first use. */
  ensureSymmetric(
    alias: string,
    algorithm: SymmetricAlgorithm,
    options?: SymmetricCallOptions & { exportable?: boolean },
  ): Promise<SymmetricKeyInfo>;
  /** HMAC-SHA256 of `data` under the active version of an HS256 alias. */
  hmac(alias: string, data: Uint8Array, options?: SymmetricCallOptions): Promise<Mac>;
  /** The same under a given version, whatever its state (re-indexing computes old and new). */
  hmacWithVersion(alias: string, version: number, data: Uint8Array, options?: SymmetricCallOptions): Promise<Mac>;
  /**
   * Envelope encryption under an A256GCM alias: a fresh 256-bit data key per call encrypts `plaintext` (with `aad`
   * authenticated), and the alias's active version (or `version`) wraps the data key.
   */
  encrypt(
    alias: string,
    plaintext: Uint8Array,
    aad: Uint8Array,
    options?: SymmetricCallOptions & { version?: number },
  ): Promise<EncryptedData>;
  /** Opens an envelope under the version its kid names, whatever its state; `aad` must equal the encryption's. */
  decrypt(ciphertext: string, aad: Uint8Array, options?: SymmetricCallOptions): Promise<DecryptedData>;
  /** Wraps the envelope's data key under the active version (or `version`) of the same alias; the data is untouched. */
  rewrap(ciphertext: string, options?: SymmetricCallOptions & { version?: number }): Promise<EncryptedData>;
  /** A new version in state `pending`: usable by explicit version, not yet the default. */
  addSymmetricVersion(alias: string): Promise<SymmetricKeyInfo>;
  /** Makes a version the active one; the previously active version is retired. Idempotent. */
  activateSymmetricVersion(alias: string, version: number): Promise<SymmetricKeyInfo>;
  /** Retires a pending version (a discarded rotation); the active version cannot be retired. Idempotent. */
  retireSymmetricVersion(alias: string, version: number): Promise<SymmetricKeyInfo>;
  /** Adds a version and activates it at once. */
  rotateSymmetric(alias: string): Promise<SymmetricKeyInfo>;
  /** Every version of `alias`, oldest first. */
  listSymmetric(alias: string): Promise<SymmetricKeyInfo[]>;
  /** The secret of an exportable HS256 key (the active version, or `version`): for sharing a lookup key only. */
  exportSymmetricKey(alias: string, version?: number): Promise<{ info: SymmetricKeyInfo; key: Uint8Array }>;
}
