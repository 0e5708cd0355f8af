import type { Sql } from '@tessera/platform';

/**
 * The identity context (000 §2.5): internal identities, their claims, and the bindings that lead to them
 * (wallet holder → identity, federation subject → identity). Used by the bridge (identity resolution, IDV, the
 * external reconciliation API) and the token service (federated login).
 *
 * Every method runs inside the caller's unit of work (`db.withTenant`), so that an identity and its binding are
 * created atomically ("nothing half-built"). A read that is one statement (findByIdentifierHashes) may also run in
 * a tenant session (`db.withTenantSession`).
 */
export interface TenantUnit {
  tenantId: string;
  sql: Sql;
}

/** Identifier types of the HMAC lookup index (000 §4.3). `SERVICE_ID` is the deployment's service claim. */
export type IdentifierType = 'KEY' | 'SERVICE_ID' | 'EPPN';

/** One lookup of the external API (000 §4.3): an identifier type and the caller-computed HMAC. */
export interface IdentifierHashQuery {
  type: IdentifierType;
  hash: string;
}

export interface Assurance {
  acr: string;
  amr: string[];
}

export interface IdentityRecord {
  internalIdentityId: string;
  /** Decrypted claims (flat object). */
  claims: Record<string, unknown>;
  assurance: Assurance;
  bindings: { walletBound: boolean; federationBound: boolean; lastAuthenticatedAt: string | null };
  createdAt: string;
}

export interface IdentityStore {
  /** The identity bound to this wallet holder key (JWK thumbprint or DID); records the binding's use. */
  findByHolderKey(unit: TenantUnit, holderKey: string): Promise<IdentityRecord | null>;
  /** Identities whose identifier of this type equals `value` (hashed with the tenant's HMAC key, never stored raw). */
  findByIdentifier(unit: TenantUnit, type: IdentifierType, value: string): Promise<IdentityRecord[]>;
  /** Same, with the caller-computed HMAC (base64url, no padding) of the external API. */
  findByIdentifierHash(unit: TenantUnit, type: IdentifierType, hash: string): Promise<IdentityRecord[]>;
  /**
   * Several such lookups in one statement (a batch of POST /lookup), answered in the order asked. Each query
   * settles on its own: an invalid query, or a stored record that does not open, fails that query only.
   */
  findByIdentifierHashes(
    unit: TenantUnit,
    queries: readonly IdentifierHashQuery[],
  ): Promise<PromiseSettledResult<IdentityRecord[]>[]>;
  findByFederationSubject(unit: TenantUnit, issuer: string, subject: string): Promise<IdentityRecord | null>;
  get(unit: TenantUnit, internalIdentityId: string): Promise<IdentityRecord | null>;
  createIdentity(
    unit: TenantUnit,
    input: { claims: Record<string, unknown>; assurance: Assurance },
  ): Promise<IdentityRecord>;
  /** Replaces the claims (and re-indexes identifiers). */
  updateClaims(unit: TenantUnit, internalIdentityId: string, claims: Record<string, unknown>): Promise<void>;
  /** Binds a wallet holder key; AppError('conflict') when the key is bound to another identity. Idempotent. */
  bindWallet(unit: TenantUnit, internalIdentityId: string, holderKey: string): Promise<void>;
  /** Binds a federation subject; AppError('conflict') when it is bound to another identity. Idempotent. */
  bindFederation(unit: TenantUnit, internalIdentityId: string, issuer: string, subject: string): Promise<void>;
  /** Removes every record of the identity (GDPR erasure, 000 §4.3 DELETE). */
  erase(unit: TenantUnit, internalIdentityId: string): Promise<void>;
}
