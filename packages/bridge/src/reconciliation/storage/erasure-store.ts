import type { Sql } from '@tessera/platform';

/**
 * The bridge's SQL of an identity erasure (000 §4.3 DELETE /{internalIdentityId}) beyond the identity store's own:
 * its session artifacts. The token service's cached tokens are its own to revoke (subject-grants-port.ts). Runs in
 * the erasure's one tenant unit of work.
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
};

async function tableExists(sql: Sql, table: string): Promise<boolean> {
  const result = await sql.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [table]);
  return result.rows[0]?.present === true;
}
