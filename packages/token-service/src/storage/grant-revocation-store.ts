import type { Sql } from '@tessera/platform';
import { toGrant, type Grant, type Row } from './grant-rows.js';

/**
 * Revocation (RFC 7009, RFC 9700 §4.14.2): of a whole grant (its refresh and access tokens), or of one access token by
 * its jti until it expires; and the state introspection and userinfo read back.
 */
export const grantRevocationStore = {
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
};
