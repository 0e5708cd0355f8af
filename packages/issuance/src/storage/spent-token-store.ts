import type { Sql } from '@tessera/platform';

/** SQL of the spent callback tokens; runs in the caller's tenant unit of work. */
export const spentTokenStore = {
  /** Spends the token; answers false when it was spent already (a replay). */
  async spend(sql: Sql, jti: string, correlationId: string, now: Date, expiresAt: Date): Promise<boolean> {
    const result = await sql.query(
      `INSERT INTO issuance_spent_callback_tokens (jti, correlation_id, spent_at, expires_at)
       VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING jti`,
      [jti, correlationId, now, expiresAt],
    );
    return result.rows.length === 1;
  },
};
