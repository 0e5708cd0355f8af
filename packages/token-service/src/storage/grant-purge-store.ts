import type { Sql } from '@tessera/platform';

/** Housekeeping of the grant tables (the job `token-service.grants.purge`, every 15 minutes). */
export const grantPurgeStore = {
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
