import type { Sql } from '@tessera/platform';

/**
 * The SQL of an identity erasure (000 §4.3 DELETE /{internalIdentityId}) beyond the identity store's own: the
 * bridge's session artifacts and the token service's cached tokens. Runs in the erasure's one tenant unit of work.
 */
export const erasureStore = {
  /**
   * Presentation sessions resolved to the identity (their sealed claims and completion result go with them, and
   * their IDV attempts by cascade), and IDV attempts that recorded the identity.
   */
  async deleteResolvedSessions(sql: Sql, identityId: string): Promise<number> {
    const sessions = await sql.query('DELETE FROM bridge_sessions WHERE plan_identity_id = $1', [identityId]);
    if (await tableExists(sql, 'bridge_idv_reconciliations'))
      await sql.query('DELETE FROM bridge_idv_reconciliations WHERE identity_id = $1', [identityId]);
    return sessions.rowCount;
  },

  /**
   * The identity's token families at the token service (its tables live in the same database when the token
   * service is deployed; without them there is nothing to revoke). Each grant whose subject is the identity is
   * revoked (its JWT access tokens then introspect inactive) and kept only as an anonymous tombstone: subject and
   * released claims are cleared. Its refresh tokens and unredeemed authorization codes are deleted.
   */
  async revokeTokenFamilies(
    sql: Sql,
    identityId: string,
    now: Date,
  ): Promise<{ grants: number; refreshTokens: number }> {
    if (!(await tableExists(sql, 'oauth_grants'))) return { grants: 0, refreshTokens: 0 };
    const grants = await sql.query<{ id: string }>(
      `UPDATE oauth_grants
          SET revoked_at = COALESCE(revoked_at, $2), revoked_reason = COALESCE(revoked_reason, 'gdpr_erasure'),
              subject = NULL, claims = '{}'::jsonb, sealed_claims = NULL
        WHERE subject = $1
        RETURNING id`,
      [identityId, now],
    );
    const ids = grants.rows.map((r) => r.id);
    if (ids.length === 0) return { grants: 0, refreshTokens: 0 };
    const refresh = await sql.query('DELETE FROM oauth_refresh_tokens WHERE grant_id = ANY($1::uuid[])', [ids]);
    await sql.query('DELETE FROM oauth_authorization_codes WHERE grant_id = ANY($1::uuid[])', [ids]);
    return { grants: ids.length, refreshTokens: refresh.rowCount };
  },
};

async function tableExists(sql: Sql, table: string): Promise<boolean> {
  const result = await sql.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [table]);
  return result.rows[0]?.present === true;
}
