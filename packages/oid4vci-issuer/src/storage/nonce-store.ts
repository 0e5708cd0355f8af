import type { Sql } from '@tessera/platform';

/** c_nonce rows (migrations/0001_oid4vci.sql): stored as hashes, consumed by deletion. */
export const nonceStore = {
  async insert(sql: Sql, nonceHash: string, expiresAt: Date): Promise<void> {
    await sql.query('INSERT INTO oid4vci_nonces (nonce_hash, expires_at) VALUES ($1, $2)', [nonceHash, expiresAt]);
  },
  /** How many of the nonces are live (known, unspent, unexpired). */
  async countLive(sql: Sql, nonceHashes: string[], now: Date): Promise<number> {
    const r = await sql.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM oid4vci_nonces WHERE nonce_hash = ANY($1::text[]) AND expires_at > $2',
      [nonceHashes, now],
    );
    return r.rows[0]?.n ?? 0;
  },
  /** Spends the live ones among the nonces; how many it spent (of concurrent spenders, exactly one gets each). */
  async consume(sql: Sql, nonceHashes: string[], now: Date): Promise<number> {
    const r = await sql.query('DELETE FROM oid4vci_nonces WHERE nonce_hash = ANY($1::text[]) AND expires_at > $2', [
      nonceHashes,
      now,
    ]);
    return r.rowCount ?? 0;
  },
};
