import type { Sql } from '@tessera/platform';

/**
 * The SQL of revoking every grant of one subject (commands/revoke-subject-grants.ts). Runs inside the caller's
 * tenant unit of work; row-level security confines it to the tenant.
 */
export const subjectGrantStore = {
  /**
   * Each grant whose subject is `subject` is revoked (its JWT access tokens then introspect inactive, and a refresh
   * is refused) and kept only as an anonymous tombstone: subject and released claims, plain or sealed, are cleared.
   * Its refresh tokens and unredeemed authorization codes are deleted. Idempotent: a second call finds no grant of
   * the subject (the first cleared it) and changes nothing.
   */
  async revokeAll(
    sql: Sql,
    subject: string,
    reason: string,
    now: Date,
  ): Promise<{ grants: number; refreshTokens: number; authorizationCodes: number }> {
    const grants = await sql.query<{ id: string }>(
      `UPDATE oauth_grants
          SET revoked_at = COALESCE(revoked_at, $2), revoked_reason = COALESCE(revoked_reason, $3),
              subject = NULL, claims = '{}'::jsonb, sealed_claims = NULL
        WHERE subject = $1
        RETURNING id`,
      [subject, now, reason],
    );
    const ids = grants.rows.map((r) => r.id);
    if (ids.length === 0) return { grants: 0, refreshTokens: 0, authorizationCodes: 0 };
    const refresh = await sql.query('DELETE FROM oauth_refresh_tokens WHERE grant_id = ANY($1::uuid[])', [ids]);
    const codes = await sql.query('DELETE FROM oauth_authorization_codes WHERE grant_id = ANY($1::uuid[])', [ids]);
    return { grants: ids.length, refreshTokens: refresh.rowCount, authorizationCodes: codes.rowCount };
  },
};
