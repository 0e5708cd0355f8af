import type { AuthorizationRequestFields } from '../domain/authorization-request-fields.js';

/**
 * The records of the token service's grant tables (migrations/0001_token_service.sql) and their row mapping, shared by
 * the stores beside this file.
 */
/** A login in progress: the relying party's request, kept while the user logs in upstream. */
export interface LoginTransaction extends AuthorizationRequestFields {
  id: string;
  upstreamNonce: string | null;
  /**
   * The upstream PKCE verifier, sealed (issue 13 §4: `sealed_upstream_code_verifier`, bound to tenant and
   * transaction). `upstreamCodeVerifier` is only a plaintext value written before sealing (cleared by the sealing job).
   */
  sealedUpstreamCodeVerifier: string | null;
  upstreamCodeVerifier: string | null;
  createdAt: Date;
  expiresAt: Date;
}

export interface Grant {
  id: string;
  clientId: string;
  subject: string | null;
  scope: string;
  acr: string | null;
  amr: string[];
  authTime: Date | null;
  /**
   * The person's claims as known in memory (a grant just made), or a plaintext value written before sealing. At
   * rest they are sealed in `sealedClaims` (issue 13 §4); read them with `grantClaims`.
   */
  claims: Record<string, unknown>;
  sealedClaims?: string | null;
  dpopJkt: string | null;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
}

export interface AuthorizationCode {
  codeHash: string;
  grantId: string;
  clientId: string;
  redirectUri: string;
  nonce: string | null;
  codeChallenge: string;
  codeChallengeMethod: string;
  expiresAt: Date;
  consumedAt: Date | null;
}

export interface RefreshToken {
  tokenHash: string;
  grantId: string;
  clientId: string;
  scope: string;
  createdAt: Date;
  expiresAt: Date;
  rotatedAt: Date | null;
  /** The successor's hash once rotated (null: not rotated, or superseded within the grace window). */
  replacedBy: string | null;
}

export type Row = Record<string, unknown>;
export const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));

export const toLogin = (r: Row): LoginTransaction => ({
  id: r.id as string,
  clientId: r.client_id as string,
  redirectUri: r.redirect_uri as string,
  scope: r.scope as string,
  state: (r.state as string | null) ?? null,
  nonce: (r.nonce as string | null) ?? null,
  codeChallenge: r.code_challenge as string,
  codeChallengeMethod: r.code_challenge_method as string,
  dpopJkt: (r.dpop_jkt as string | null) ?? null,
  upstreamNonce: (r.upstream_nonce as string | null) ?? null,
  upstreamCodeVerifier: (r.upstream_code_verifier as string | null) ?? null,
  sealedUpstreamCodeVerifier: (r.sealed_upstream_code_verifier as string | null) ?? null,
  createdAt: date(r.created_at)!,
  expiresAt: date(r.expires_at)!,
});

export const toGrant = (r: Row): Grant => ({
  id: r.id as string,
  clientId: r.client_id as string,
  subject: (r.subject as string | null) ?? null,
  scope: r.scope as string,
  acr: (r.acr as string | null) ?? null,
  amr: (r.amr as string[]) ?? [],
  authTime: date(r.auth_time),
  claims: (r.claims as Record<string, unknown>) ?? {},
  sealedClaims: (r.sealed_claims as string | null) ?? null,
  dpopJkt: (r.dpop_jkt as string | null) ?? null,
  createdAt: date(r.created_at)!,
  expiresAt: date(r.expires_at)!,
  revokedAt: date(r.revoked_at),
});

export const toCode = (r: Row): AuthorizationCode => ({
  codeHash: r.code_hash as string,
  grantId: r.grant_id as string,
  clientId: r.client_id as string,
  redirectUri: r.redirect_uri as string,
  nonce: (r.nonce as string | null) ?? null,
  codeChallenge: r.code_challenge as string,
  codeChallengeMethod: r.code_challenge_method as string,
  expiresAt: date(r.expires_at)!,
  consumedAt: date(r.consumed_at),
});

export const toRefresh = (r: Row): RefreshToken => ({
  tokenHash: r.token_hash as string,
  grantId: r.grant_id as string,
  clientId: r.client_id as string,
  scope: r.scope as string,
  createdAt: date(r.created_at)!,
  expiresAt: date(r.expires_at)!,
  rotatedAt: date(r.rotated_at),
  replacedBy: (r.replaced_by as string | null) ?? null,
});

/** A refresh token joined with its grant; the token's columns that the grant shares are renamed. */
export const REFRESH_WITH_GRANT = `SELECT t.token_hash, t.grant_id, t.client_id AS token_client_id, t.scope AS token_scope,
         t.created_at AS token_created_at, t.expires_at AS token_expires_at, t.rotated_at, t.replaced_by, g.*
       FROM oauth_refresh_tokens t JOIN oauth_grants g ON g.id = t.grant_id`;

export const toRefreshWithGrant = (row: Row): { token: RefreshToken; grant: Grant } => ({
  token: toRefresh({
    ...row,
    client_id: row.token_client_id,
    scope: row.token_scope,
    created_at: row.token_created_at,
    expires_at: row.token_expires_at,
  }),
  grant: toGrant(row),
});
