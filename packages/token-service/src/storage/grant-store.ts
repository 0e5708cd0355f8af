import type { Sql } from '@tessera/platform';
import type { AuthorizationRequestFields } from '../domain/authorization-request-fields.js';

/**
 * SQL of the token service (migrations/0001_token_service.sql). Every function runs inside the caller's
 * tenant unit of work; row-level security confines it to the tenant.
 */
/** A login in progress: the relying party's request, kept while the user logs in upstream. */
export interface LoginTransaction extends AuthorizationRequestFields {
  id: string;
  upstreamNonce: string | null;
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
  claims: Record<string, unknown>;
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
}

type Row = Record<string, unknown>;
const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));

const toLogin = (r: Row): LoginTransaction => ({
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
  createdAt: date(r.created_at)!,
  expiresAt: date(r.expires_at)!,
});

const toGrant = (r: Row): Grant => ({
  id: r.id as string,
  clientId: r.client_id as string,
  subject: (r.subject as string | null) ?? null,
  scope: r.scope as string,
  acr: (r.acr as string | null) ?? null,
  amr: (r.amr as string[]) ?? [],
  authTime: date(r.auth_time),
  claims: (r.claims as Record<string, unknown>) ?? {},
  dpopJkt: (r.dpop_jkt as string | null) ?? null,
  createdAt: date(r.created_at)!,
  expiresAt: date(r.expires_at)!,
  revokedAt: date(r.revoked_at),
});

const toCode = (r: Row): AuthorizationCode => ({
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

const toRefresh = (r: Row): RefreshToken => ({
  tokenHash: r.token_hash as string,
  grantId: r.grant_id as string,
  clientId: r.client_id as string,
  scope: r.scope as string,
  createdAt: date(r.created_at)!,
  expiresAt: date(r.expires_at)!,
  rotatedAt: date(r.rotated_at),
});

export const grantStore = {
  async saveLoginTransaction(sql: Sql, t: LoginTransaction & { upstreamStateHash: string | null }): Promise<void> {
    await sql.query(
      `INSERT INTO oauth_login_transactions (id, client_id, redirect_uri, scope, state, nonce, code_challenge, code_challenge_method,
         dpop_jkt, upstream_state_hash, upstream_nonce, upstream_code_verifier, created_at, expires_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14)`,
      [t.id, t.clientId, t.redirectUri, t.scope, t.state, t.nonce, t.codeChallenge, t.codeChallengeMethod, t.dpopJkt,
        t.upstreamStateHash, t.upstreamNonce, t.upstreamCodeVerifier, t.createdAt, t.expiresAt],
    );
  },

  /** Single use: the transaction is deleted as it is taken, so a replayed upstream state finds nothing. */
  async takeLoginTransactionByUpstreamState(sql: Sql, upstreamStateHash: string): Promise<LoginTransaction | null> {
    const r = await sql.query<Row>('DELETE FROM oauth_login_transactions WHERE upstream_state_hash = $1 RETURNING *', [upstreamStateHash]);
    return r.rows[0] ? toLogin(r.rows[0]) : null;
  },

  async takeLoginTransaction(sql: Sql, id: string): Promise<LoginTransaction | null> {
    const r = await sql.query<Row>('DELETE FROM oauth_login_transactions WHERE id = $1 RETURNING *', [id]);
    return r.rows[0] ? toLogin(r.rows[0]) : null;
  },

  /** Creates the grant and its authorization code together. */
  async saveGrantWithCode(sql: Sql, grant: Grant, code: AuthorizationCode & { createdAt: Date }): Promise<void> {
    await sql.query(
      `WITH g AS (
         INSERT INTO oauth_grants (id, client_id, subject, scope, acr, amr, auth_time, claims, dpop_jkt, created_at, expires_at)
         VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11) RETURNING id)
       INSERT INTO oauth_authorization_codes (code_hash, grant_id, client_id, redirect_uri, nonce, code_challenge, code_challenge_method, created_at, expires_at)
       SELECT $12, g.id, $2, $13, $14, $15, $16, $10, $17 FROM g`,
      [grant.id, grant.clientId, grant.subject, grant.scope, grant.acr, grant.amr, grant.authTime, JSON.stringify(grant.claims), grant.dpopJkt,
        grant.createdAt, grant.expiresAt, code.codeHash, code.redirectUri, code.nonce, code.codeChallenge, code.codeChallengeMethod, code.expiresAt],
    );
  },

  async findCodeWithGrant(sql: Sql, codeHash: string): Promise<{ code: AuthorizationCode; grant: Grant } | null> {
    const r = await sql.query<Row>(
      `SELECT c.code_hash, c.grant_id, c.client_id AS code_client_id, c.redirect_uri, c.nonce, c.code_challenge, c.code_challenge_method,
              c.expires_at AS code_expires_at, c.consumed_at, g.*
       FROM oauth_authorization_codes c JOIN oauth_grants g ON g.id = c.grant_id WHERE c.code_hash = $1`,
      [codeHash],
    );
    const row = r.rows[0];
    if (!row) return null;
    return {
      code: toCode({ ...row, client_id: row.code_client_id, expires_at: row.code_expires_at }),
      grant: toGrant(row),
    };
  },

  /**
   * Consumes the code (once: a concurrent redemption loses) and, in the same statement, activates its grant's
   * lifetime, binds it to a DPoP key when one is given and it has none yet (RFC 9449 §5), and stores the first
   * refresh token. Answers false when the code was already consumed.
   */
  async consumeCode(
    sql: Sql,
    input: {
      codeHash: string;
      now: Date;
      grantExpiresAt: Date;
      refresh: { tokenHash: string; scope: string; expiresAt: Date } | null;
      dpopJkt?: string | null;
    },
  ): Promise<boolean> {
    const r = await sql.query<{ grant_id: string }>(
      `WITH c AS (
         UPDATE oauth_authorization_codes SET consumed_at = $2 WHERE code_hash = $1 AND consumed_at IS NULL RETURNING grant_id, client_id),
       g AS (UPDATE oauth_grants SET expires_at = $3, dpop_jkt = COALESCE(dpop_jkt, $7::text) WHERE id = (SELECT grant_id FROM c) RETURNING id),
       r AS (
         INSERT INTO oauth_refresh_tokens (token_hash, grant_id, client_id, scope, created_at, expires_at)
         SELECT $4, c.grant_id, c.client_id, $5, $2, $6 FROM c WHERE $4::text IS NOT NULL RETURNING 1)
       SELECT grant_id FROM c`,
      [input.codeHash, input.now, input.grantExpiresAt, input.refresh?.tokenHash ?? null, input.refresh?.scope ?? null, input.refresh?.expiresAt ?? null,
        input.dpopJkt ?? null],
    );
    return r.rowCount === 1;
  },

  async findRefreshTokenWithGrant(sql: Sql, tokenHash: string): Promise<{ token: RefreshToken; grant: Grant } | null> {
    const r = await sql.query<Row>(
      `SELECT t.token_hash, t.grant_id, t.client_id AS token_client_id, t.scope AS token_scope, t.created_at AS token_created_at,
              t.expires_at AS token_expires_at, t.rotated_at, g.*
       FROM oauth_refresh_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.token_hash = $1`,
      [tokenHash],
    );
    const row = r.rows[0];
    if (!row) return null;
    return {
      token: toRefresh({ ...row, client_id: row.token_client_id, scope: row.token_scope, created_at: row.token_created_at, expires_at: row.token_expires_at }),
      grant: toGrant(row),
    };
  },

  /**
   * Rotation (000 §3.3): marks the presented token rotated and stores its successor, atomically; of N concurrent
   * rotations of one token exactly one succeeds. `graceUntil` tolerates a reuse of a token rotated after it.
   */
  async rotateRefreshToken(
    sql: Sql,
    input: { tokenHash: string; now: Date; next: { tokenHash: string; scope: string; expiresAt: Date }; rotatedAfter: Date | null },
  ): Promise<boolean> {
    const r = await sql.query(
      `WITH old AS (
         UPDATE oauth_refresh_tokens SET rotated_at = COALESCE(rotated_at, $2)
         WHERE token_hash = $1 AND (rotated_at IS NULL OR ($6::timestamptz IS NOT NULL AND rotated_at >= $6))
         RETURNING grant_id, client_id)
       INSERT INTO oauth_refresh_tokens (token_hash, grant_id, client_id, scope, created_at, expires_at)
       SELECT $3, grant_id, client_id, $4, $2, $5 FROM old RETURNING 1`,
      [input.tokenHash, input.now, input.next.tokenHash, input.next.scope, input.next.expiresAt, input.rotatedAfter],
    );
    return r.rowCount === 1;
  },

  async revokeGrant(sql: Sql, grantId: string, reason: string, now: Date): Promise<void> {
    await sql.query(
      `UPDATE oauth_grants SET revoked_at = COALESCE(revoked_at, $2), revoked_reason = COALESCE(revoked_reason, $3) WHERE id = $1`,
      [grantId, now, reason],
    );
  },

  async revokeAccessToken(sql: Sql, jti: string, expiresAt: Date): Promise<void> {
    await sql.query('INSERT INTO oauth_revoked_access_tokens (jti, expires_at) VALUES ($1, $2) ON CONFLICT DO NOTHING', [jti, expiresAt]);
  },

  /** What introspection and userinfo need of an access token beyond its signature: its grant, and whether it was revoked. */
  async accessTokenState(sql: Sql, jti: string, grantId: string | null): Promise<{ revoked: boolean; grant: Grant | null }> {
    const r = await sql.query<Row & { token_revoked: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM oauth_revoked_access_tokens WHERE jti = $1) AS token_revoked, g.*
       FROM (SELECT 1) one LEFT JOIN oauth_grants g ON g.id = $2::uuid`,
      [jti, grantId],
    );
    const row = r.rows[0]!;
    return { revoked: row.token_revoked === true, grant: row.id ? toGrant(row) : null };
  },

  /** Housekeeping: expired codes, login transactions, refresh tokens, revocation records and grants. */
  async purgeExpired(sql: Sql, now: Date): Promise<number> {
    let n = 0;
    for (const table of ['oauth_authorization_codes', 'oauth_login_transactions', 'oauth_refresh_tokens', 'oauth_revoked_access_tokens']) {
      n += (await sql.query(`DELETE FROM ${table} WHERE expires_at < $1`, [now])).rowCount;
    }
    n += (await sql.query(`DELETE FROM oauth_grants g WHERE g.expires_at < $1 AND NOT EXISTS (SELECT 1 FROM oauth_refresh_tokens t WHERE t.grant_id = g.id)`, [now])).rowCount;
    return n;
  },
};
