import type { Sql } from '@tessera/platform';

/**
 * Removal of expired sessions (their attributes and connector fields go with them, ON DELETE CASCADE) and of spent
 * callback tokens past their expiry, across tenants (platform unit of work), in bounded batches.
 */
export const purgeStore = {
  async expiredSessions(sql: Sql, now: Date, limit: number): Promise<number> {
    const result = await sql.query(
      `DELETE FROM issuance_sessions WHERE (tenant_id, id) IN (
         SELECT tenant_id, id FROM issuance_sessions WHERE expires_at <= $1 LIMIT $2)
       RETURNING id`,
      [now, limit],
    );
    return result.rows.length;
  },

  async spentTokens(sql: Sql, now: Date, limit: number): Promise<number> {
    const result = await sql.query(
      `DELETE FROM issuance_spent_callback_tokens WHERE (tenant_id, jti) IN (
         SELECT tenant_id, jti FROM issuance_spent_callback_tokens WHERE expires_at <= $1 LIMIT $2)
       RETURNING jti`,
      [now, limit],
    );
    return result.rows.length;
  },
};
