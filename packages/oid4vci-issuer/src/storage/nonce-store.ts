import type { Sql } from '@tessera/platform';

/** c_nonce rows (migrations/0001_oid4vci.sql): stored as hashes, consumed by deletion. */
export const nonceStore = {
  async insert(sql: Sql, nonceHash: string, expiresAt: Date): Promise<void> {
    await sql.query('INSERT INTO oid4vci_nonces (nonce_hash, expires_at) VALUES ($1, $2)', [nonceHash, expiresAt]);
  },
  /** true when the nonce was live and is now spent (exactly one caller gets true). */
  async consume(sql: Sql, nonceHash: string, now: Date): Promise<boolean> {
    const r = await sql.query('DELETE FROM oid4vci_nonces WHERE nonce_hash = $1 AND expires_at > $2', [nonceHash, now]);
    return r.rowCount === 1;
  },
};
