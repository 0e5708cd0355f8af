import type { Sql } from '@tessera/platform';

/**
 * Personal data written in plaintext before sealing (issue 13 §4): the rows still holding it, and their sealing by the
 * job that seals them (sealed-fields.ts).
 */
export const unsealedRowsStore = {
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
};
