import { stageAuditEventsFrom, type PendingAuditEvent, type Sql } from '@tessera/platform';
import type { AuthorizationRequestFields } from '../domain/authorization-request-fields.js';

/**
 * SQL of the token service (migrations/0001_token_service.sql). Every function runs inside the caller's
 * tenant unit of work (`db.withTenant`, or `db.withTenantSession` for a unit that is one statement); row-level
 * security confines it to the tenant.
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

/** One authorization code presented at the token endpoint (RFC 6749 §4.1.3), as redeemCode checks it. */
export interface CodeRedemption {
  codeHash: string;
  clientId: string;
  redirectUri: string;
  /** The S256 challenge of the presented verifier (RFC 7636 §4.6). */
  codeChallenge: string;
  now: Date;
  /** The thumbprint of the request's DPoP proof key, if any. */
  dpopJkt: string | null;
  /** The grant's lifetime from now on, without and with a refresh token. */
  grantExpiresAt: Date;
  grantExpiresAtWithRefresh: Date;
  refresh: { tokenHash: string; expiresAt: Date; requiredScope: string } | null;
  /** The execution's audit event, staged by the statement when it consumes the code (issue 13 §7). */
  auditEvent?: PendingAuditEvent | null;
}

/** The code and grant as they were before the statement (null: no such code), and what the statement did. */
export interface CodeRedeemed {
  found: { code: AuthorizationCode; grant: Grant } | null;
  consumed: boolean;
  refreshStored: boolean;
}

/** One refresh token presented at the token endpoint (RFC 6749 §6), as redeemRefreshToken checks it. */
export interface RefreshRedemption {
  tokenHash: string;
  clientId: string;
  now: Date;
  /**
   * The grace window (refreshTokenReuseGraceSeconds): a token rotated at or after this may be presented again while
   * its successor is unused; the successor is then superseded by a new one. Null: no grace.
   */
  rotatedAfter: Date | null;
  /** The thumbprint of the request's DPoP proof key, if any. */
  dpopJkt: string | null;
  /** A client without a secret may refresh only a DPoP-bound grant (RFC 9449 §5). */
  publicClient: boolean;
  /** The narrower scope asked for, or null for the token's own. */
  scope: readonly string[] | null;
  next: { tokenHash: string; expiresAt: Date };
  /** The execution's audit event, staged by the statement when it rotates the token (issue 13 §7). */
  auditEvent?: PendingAuditEvent | null;
}

/** The token and grant as they were before the statement (null: no such token), and whether it was rotated. */
export interface RefreshRedeemed {
  found: { token: RefreshToken; grant: Grant } | null;
  rotated: boolean;
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
  sealedUpstreamCodeVerifier: (r.sealed_upstream_code_verifier as string | null) ?? null,
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
  sealedClaims: (r.sealed_claims as string | null) ?? null,
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
  replacedBy: (r.replaced_by as string | null) ?? null,
});

/** A refresh token joined with its grant; the token's columns that the grant shares are renamed. */
const REFRESH_WITH_GRANT = `SELECT t.token_hash, t.grant_id, t.client_id AS token_client_id, t.scope AS token_scope,
         t.created_at AS token_created_at, t.expires_at AS token_expires_at, t.rotated_at, t.replaced_by, g.*
       FROM oauth_refresh_tokens t JOIN oauth_grants g ON g.id = t.grant_id`;

const toRefreshWithGrant = (row: Row): { token: RefreshToken; grant: Grant } => ({
  token: toRefresh({
    ...row,
    client_id: row.token_client_id,
    scope: row.token_scope,
    created_at: row.token_created_at,
    expires_at: row.token_expires_at,
  }),
  grant: toGrant(row),
});

export const grantStore = {
  /** Rows written before sealing (issue 13 §4): grants whose claims are still in the plaintext column. */
  async unsealedGrantClaims(sql: Sql, limit: number): Promise<Array<{ id: string; claims: Record<string, unknown> }>> {
    const r = await sql.query<{ id: string; claims: Record<string, unknown> }>(
      `SELECT id, claims FROM oauth_grants WHERE sealed_claims IS NULL AND claims <> '{}'::jsonb LIMIT $1`,
      [limit],
    );
    return r.rows;
  },

  async sealGrantClaims(sql: Sql, id: string, sealed: string): Promise<void> {
    await sql.query(
      `UPDATE oauth_grants SET sealed_claims = $2, claims = '{}' WHERE id = $1 AND sealed_claims IS NULL`,
      [id, sealed],
    );
  },

  /** Login transactions written before sealing, whose upstream verifier is still in the plaintext column. */
  async unsealedUpstreamVerifiers(sql: Sql, limit: number): Promise<Array<{ id: string; verifier: string }>> {
    const r = await sql.query<{ id: string; verifier: string }>(
      `SELECT id, upstream_code_verifier AS verifier FROM oauth_login_transactions
        WHERE upstream_code_verifier IS NOT NULL LIMIT $1`,
      [limit],
    );
    return r.rows;
  },

  async sealUpstreamVerifier(sql: Sql, id: string, sealed: string): Promise<void> {
    await sql.query(
      `UPDATE oauth_login_transactions SET sealed_upstream_code_verifier = $2, upstream_code_verifier = NULL
        WHERE id = $1`,
      [id, sealed],
    );
  },

  /** The upstream verifier goes in sealed only (`sealedUpstreamCodeVerifier`); the plaintext column stays empty. */
  async saveLoginTransaction(
    sql: Sql,
    t: Omit<LoginTransaction, 'upstreamCodeVerifier'> & { upstreamStateHash: string | null },
  ): Promise<void> {
    await sql.query(
      `INSERT INTO oauth_login_transactions (id, client_id, redirect_uri, scope, state, nonce, code_challenge, code_challenge_method,
         dpop_jkt, upstream_state_hash, upstream_nonce, sealed_upstream_code_verifier, created_at, expires_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14)`,
      [
        t.id,
        t.clientId,
        t.redirectUri,
        t.scope,
        t.state,
        t.nonce,
        t.codeChallenge,
        t.codeChallengeMethod,
        t.dpopJkt,
        t.upstreamStateHash,
        t.upstreamNonce,
        t.sealedUpstreamCodeVerifier,
        t.createdAt,
        t.expiresAt,
      ],
    );
  },

  /** Single use: the transaction is deleted as it is taken, so a replayed upstream state finds nothing. */
  async takeLoginTransactionByUpstreamState(sql: Sql, upstreamStateHash: string): Promise<LoginTransaction | null> {
    const r = await sql.query<Row>('DELETE FROM oauth_login_transactions WHERE upstream_state_hash = $1 RETURNING *', [
      upstreamStateHash,
    ]);
    return r.rows[0] ? toLogin(r.rows[0]) : null;
  },

  async takeLoginTransaction(sql: Sql, id: string): Promise<LoginTransaction | null> {
    const r = await sql.query<Row>('DELETE FROM oauth_login_transactions WHERE id = $1 RETURNING *', [id]);
    return r.rows[0] ? toLogin(r.rows[0]) : null;
  },

  /**
   * Creates the grant and its authorization code together. The claims go in sealed only (`sealedClaims`, issue 13
   * §4); the plaintext column stays empty.
   */
  async saveGrantWithCode(
    sql: Sql,
    grant: Grant,
    sealedClaims: string,
    code: AuthorizationCode & { createdAt: Date },
  ): Promise<void> {
    await sql.query(
      `WITH g AS (
         INSERT INTO oauth_grants (id, client_id, subject, scope, acr, amr, auth_time, claims, sealed_claims, dpop_jkt, created_at, expires_at)
         VALUES ($1,$2,$3,$4,$5,$6,$7,'{}',$8,$9,$10,$11) RETURNING id)
       INSERT INTO oauth_authorization_codes (code_hash, grant_id, client_id, redirect_uri, nonce, code_challenge, code_challenge_method, created_at, expires_at)
       SELECT $12, g.id, $2, $13, $14, $15, $16, $10, $17 FROM g`,
      [
        grant.id,
        grant.clientId,
        grant.subject,
        grant.scope,
        grant.acr,
        grant.amr,
        grant.authTime,
        sealedClaims,
        grant.dpopJkt,
        grant.createdAt,
        grant.expiresAt,
        code.codeHash,
        code.redirectUri,
        code.nonce,
        code.codeChallenge,
        code.codeChallengeMethod,
        code.expiresAt,
      ],
    );
  },

  /**
   * Redeems an authorization code in one statement (RFC 6749 §4.1.3): the code is consumed only when every check
   * holds (unconsumed, this client, this redirect URI, unexpired, the S256 challenge of the presented verifier, and
   * a proof by the grant's DPoP key when it is bound, RFC 9449 §10), so that a refused request leaves it unused.
   * Consuming it also activates the grant's lifetime, binds the grant to the proof's key when it has none yet
   * (RFC 9449 §5) and, when the grant's scope holds `refresh.requiredScope`, stores the first refresh token.
   * Being one statement it is atomic without a transaction: of concurrent redemptions exactly one consumes.
   *
   * Answers the code and grant as they were before the statement (null when no such code), so that the caller can
   * tell why a refused redemption was refused, and whether this statement consumed the code and stored a refresh
   * token.
   */
  async redeemCode(sql: Sql, input: CodeRedemption): Promise<CodeRedeemed> {
    return (await grantStore.redeemCodes(sql, [input]))[0]!;
  },

  /**
   * redeemCode for several codes in one statement (the token endpoint batches concurrent exchanges of a tenant):
   * each input row is checked and consumed as it would be alone. The codes must be distinct: a code presented twice
   * belongs in a later statement, which then finds it consumed. Answers in the order of `inputs`.
   */
  async redeemCodes(sql: Sql, inputs: readonly CodeRedemption[]): Promise<CodeRedeemed[]> {
    const rows = inputs.map((input, n) => ({
      n,
      code_hash: input.codeHash,
      client_id: input.clientId,
      redirect_uri: input.redirectUri,
      code_challenge: input.codeChallenge,
      at: input.now,
      dpop_jkt: input.dpopJkt,
      grant_expires_at: input.grantExpiresAt,
      grant_expires_at_with_refresh: input.grantExpiresAtWithRefresh,
      refresh_hash: input.refresh?.tokenHash ?? null,
      refresh_expires_at: input.refresh?.expiresAt ?? null,
      required_scope: input.refresh?.requiredScope ?? null,
      audit_event: input.auditEvent ?? null,
    }));
    // Every common table expression sees the rows as they were before the statement (PostgreSQL §7.8.4), so
    // `found` is the state before the redemption, whatever the other parts change. The lateral join looks each
    // input up by its key, an index probe per row (LIMIT 1 keeps the planner from flattening it into a join): the
    // planner cannot count a JSON parameter's rows, and joining them as a set had it scan every code of the tenant.
    const r = await sql.query<Row & { n: number; consumed: boolean; refresh_stored: boolean }>(
      `WITH input AS (
         SELECT * FROM jsonb_to_recordset($1::text::jsonb) AS i(n int, code_hash text, client_id text, redirect_uri text,
           code_challenge text, at timestamptz, dpop_jkt text, grant_expires_at timestamptz,
           grant_expires_at_with_refresh timestamptz, refresh_hash text, refresh_expires_at timestamptz, required_scope text,
           audit_event jsonb)),
       found AS (
         SELECT i.n, x.*, (i.refresh_hash IS NOT NULL AND i.required_scope = ANY (string_to_array(x.scope, ' '))) AS offline
         FROM input i CROSS JOIN LATERAL (
           SELECT c.code_hash, c.grant_id, c.client_id AS code_client_id, c.redirect_uri, c.nonce, c.code_challenge,
                  c.code_challenge_method, c.expires_at AS code_expires_at, c.consumed_at, g.*
           FROM oauth_authorization_codes c JOIN oauth_grants g ON g.id = c.grant_id WHERE c.code_hash = i.code_hash LIMIT 1) x),
       consumed AS (
         UPDATE oauth_authorization_codes code SET consumed_at = i.at
         FROM input i JOIN found f ON f.n = i.n
         WHERE code.code_hash = i.code_hash AND code.consumed_at IS NULL AND code.client_id = i.client_id
           AND code.redirect_uri = i.redirect_uri AND code.expires_at > i.at AND code.code_challenge_method = 'S256'
           AND code.code_challenge = i.code_challenge AND (f.dpop_jkt IS NULL OR f.dpop_jkt = i.dpop_jkt)
         RETURNING i.n, code.grant_id, code.client_id, f.scope, f.offline, i.at, i.dpop_jkt, i.grant_expires_at,
                   i.grant_expires_at_with_refresh, i.refresh_hash, i.refresh_expires_at),
       activated AS (
         UPDATE oauth_grants g
            SET expires_at = CASE WHEN c.offline THEN c.grant_expires_at_with_refresh ELSE c.grant_expires_at END,
                dpop_jkt = COALESCE(g.dpop_jkt, c.dpop_jkt)
         FROM consumed c WHERE g.id = c.grant_id RETURNING g.id),
       refresh AS (
         INSERT INTO oauth_refresh_tokens (token_hash, grant_id, client_id, scope, created_at, expires_at)
         SELECT refresh_hash, grant_id, client_id, scope, at, refresh_expires_at FROM consumed WHERE offline
         RETURNING token_hash),
       staged AS (${stageAuditEventsFrom('(SELECT i.audit_event FROM input i JOIN consumed c ON c.n = i.n)')})
       SELECT found.*, EXISTS (SELECT 1 FROM consumed c WHERE c.n = found.n) AS consumed,
              EXISTS (SELECT 1 FROM refresh r JOIN input i ON r.token_hash = i.refresh_hash WHERE i.n = found.n)
                AS refresh_stored
       FROM found`,
      [JSON.stringify(rows)],
      { prepareAs: 'token.redeem-codes' },
    );
    const byInput = new Map(r.rows.map((row) => [Number(row.n), row]));
    return inputs.map((_, n): CodeRedeemed => {
      const row = byInput.get(n);
      if (!row) return { found: null, consumed: false, refreshStored: false };
      return {
        found: {
          code: toCode({ ...row, client_id: row.code_client_id, expires_at: row.code_expires_at }),
          grant: toGrant(row),
        },
        consumed: row.consumed === true,
        refreshStored: row.refresh_stored === true,
      };
    });
  },

  async findRefreshTokenWithGrant(sql: Sql, tokenHash: string): Promise<{ token: RefreshToken; grant: Grant } | null> {
    const r = await sql.query<Row>(`${REFRESH_WITH_GRANT} WHERE t.token_hash = $1`, [tokenHash]);
    const row = r.rows[0];
    return row ? toRefreshWithGrant(row) : null;
  },

  /**
   * Rotation (000 §3.3, RFC 9700 §4.14.2) in one statement: the presented token is marked rotated and its successor
   * stored only when every check holds (this client, unexpired, not yet rotated or rotated after `rotatedAfter`, the
   * grant not revoked, a proof by the grant's DPoP key when it is bound, a DPoP-bound grant for a public client,
   * and `scope` within the token's), so that a refused request leaves the token as it was. Atomic without a
   * transaction: of N concurrent rotations of one token exactly one succeeds. The successor's scope is `scope`, or
   * the presented token's.
   *
   * Answers the token and grant as they were before the statement (null when no such token), so that the caller
   * can tell why a refused rotation was refused, and whether this statement rotated the token.
   */
  async redeemRefreshToken(sql: Sql, input: RefreshRedemption): Promise<RefreshRedeemed> {
    return (await grantStore.redeemRefreshTokens(sql, [input]))[0]!;
  },

  /**
   * redeemRefreshToken for several tokens in one statement (the token endpoint batches concurrent refreshes of a
   * tenant): each input row is checked and rotated as it would be alone. The tokens must be distinct: a token
   * presented twice belongs in a later statement, which then finds it rotated. Answers in the order of `inputs`.
   */
  async redeemRefreshTokens(sql: Sql, inputs: readonly RefreshRedemption[]): Promise<RefreshRedeemed[]> {
    const rows = inputs.map((input, n) => ({
      n,
      token_hash: input.tokenHash,
      client_id: input.clientId,
      at: input.now,
      rotated_after: input.rotatedAfter,
      dpop_jkt: input.dpopJkt,
      public_client: input.publicClient,
      // Scope tokens hold no space (RFC 6749 §3.3), so the list travels as its space-delimited form.
      scope: input.scope === null ? null : input.scope.join(' '),
      next_hash: input.next.tokenHash,
      next_expires_at: input.next.expiresAt,
      audit_event: input.auditEvent ?? null,
    }));
    // As in redeemCodes: each input is looked up by its key through a lateral join. `eligible` is the checks that
    // hold whatever the token's rotation state. `graceful` is the grace window's retry: the presented token was
    // rotated within the window and its successor is still unused; that successor is locked (so that its own
    // concurrent rotation waits, and then finds it used), marked used by `superseded` (a later presentation of it
    // is a reuse), and the presented token gets a new successor in its place. A token whose successor was used is
    // not eligible again: its presentation is a reuse (RFC 9700 §4.14.2). The successor's state is read under the
    // lock rather than from a data-modifying expression: PostgreSQL cannot re-check one of those when a concurrent
    // rotation of the presented token makes it re-evaluate the update (EvalPlanQual).
    const r = await sql.query<Row & { n: number; rotated: boolean }>(
      `WITH input AS (
         SELECT * FROM jsonb_to_recordset($1::text::jsonb) AS i(n int, token_hash text, client_id text, at timestamptz,
           rotated_after timestamptz, dpop_jkt text, public_client boolean, scope text, next_hash text,
           next_expires_at timestamptz, audit_event jsonb)),
       found AS (
         SELECT i.n, x.* FROM input i CROSS JOIN LATERAL (${REFRESH_WITH_GRANT} WHERE t.token_hash = i.token_hash LIMIT 1) x),
       eligible AS (
         SELECT i.*, f.rotated_at AS found_rotated_at, f.replaced_by AS found_replaced_by
         FROM input i JOIN found f ON f.n = i.n
         WHERE f.token_client_id = i.client_id AND f.token_expires_at > i.at
           AND f.revoked_at IS NULL AND (f.dpop_jkt IS NULL OR f.dpop_jkt = i.dpop_jkt)
           AND (NOT i.public_client OR f.dpop_jkt IS NOT NULL)
           AND (i.scope IS NULL OR string_to_array(i.scope, ' ') <@ string_to_array(f.token_scope, ' '))),
       graceful AS (
         SELECT e.n, s.token_hash AS successor_hash
         FROM eligible e JOIN oauth_refresh_tokens s ON s.token_hash = e.found_replaced_by
         WHERE e.rotated_after IS NOT NULL AND e.found_rotated_at >= e.rotated_after AND s.rotated_at IS NULL
         FOR UPDATE OF s),
       superseded AS (
         UPDATE oauth_refresh_tokens s SET rotated_at = e.at
         FROM eligible e JOIN graceful g ON g.n = e.n
         WHERE s.token_hash = g.successor_hash
         RETURNING g.n),
       rotated AS (
         UPDATE oauth_refresh_tokens t SET rotated_at = COALESCE(t.rotated_at, e.at), replaced_by = e.next_hash
         FROM eligible e LEFT JOIN graceful g ON g.n = e.n
         WHERE t.token_hash = e.token_hash
           AND (t.rotated_at IS NULL OR (g.n IS NOT NULL AND t.replaced_by = g.successor_hash))
         RETURNING e.n, t.grant_id, t.client_id, COALESCE(e.scope, t.scope) AS scope, e.at, e.next_hash,
                   e.next_expires_at, e.audit_event),
       successor AS (
         INSERT INTO oauth_refresh_tokens (token_hash, grant_id, client_id, scope, created_at, expires_at)
         SELECT next_hash, grant_id, client_id, scope, at, next_expires_at FROM rotated RETURNING token_hash),
       staged AS (${stageAuditEventsFrom('rotated')})
       SELECT found.*,
              EXISTS (SELECT 1 FROM successor s JOIN input i ON s.token_hash = i.next_hash WHERE i.n = found.n) AS rotated
       FROM found`,
      [JSON.stringify(rows)],
      { prepareAs: 'token.redeem-refresh-tokens' },
    );
    const byInput = new Map(r.rows.map((row) => [Number(row.n), row]));
    return inputs.map((_, n): RefreshRedeemed => {
      const row = byInput.get(n);
      return row ? { found: toRefreshWithGrant(row), rotated: row.rotated === true } : { found: null, rotated: false };
    });
  },

  async revokeGrant(sql: Sql, grantId: string, reason: string, now: Date): Promise<void> {
    await sql.query(
      `UPDATE oauth_grants SET revoked_at = COALESCE(revoked_at, $2), revoked_reason = COALESCE(revoked_reason, $3) WHERE id = $1`,
      [grantId, now, reason],
    );
  },

  async revokeAccessToken(sql: Sql, jti: string, expiresAt: Date): Promise<void> {
    await sql.query(
      'INSERT INTO oauth_revoked_access_tokens (jti, expires_at) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [jti, expiresAt],
    );
  },

  /** What introspection and userinfo need of an access token beyond its signature: its grant, and whether it was revoked. */
  async accessTokenState(
    sql: Sql,
    jti: string,
    grantId: string | null,
  ): Promise<{ revoked: boolean; grant: Grant | null }> {
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
    for (const table of [
      'oauth_authorization_codes',
      'oauth_login_transactions',
      'oauth_refresh_tokens',
      'oauth_revoked_access_tokens',
    ]) {
      n += (await sql.query(`DELETE FROM ${table} WHERE expires_at < $1`, [now])).rowCount;
    }
    n += (
      await sql.query(
        `DELETE FROM oauth_grants g WHERE g.expires_at < $1 AND NOT EXISTS (SELECT 1 FROM oauth_refresh_tokens t WHERE t.grant_id = g.id)`,
        [now],
      )
    ).rowCount;
    return n;
  },
};
