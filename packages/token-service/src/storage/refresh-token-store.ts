import { stageAuditEventsFrom, type PendingAuditEvent, type Sql } from '@tessera/platform';
import { REFRESH_WITH_GRANT, toRefreshWithGrant, type Grant, type RefreshToken, type Row } from './grant-rows.js';

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

/** Refresh tokens (RFC 6749 §6) and their rotation (000 §3.3, RFC 9700 §4.14.2). */
export const refreshTokenStore = {
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
    return (await refreshTokenStore.redeemRefreshTokens(sql, [input]))[0]!;
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
};
