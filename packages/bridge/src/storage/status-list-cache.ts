import type { Sql } from '@tessera/platform';

/** A fetched status list (Token Status List JWT or Bitstring status list credential), as cached. */
export interface CachedStatusList {
  uri: string;
  token: string;
  fetchedAt: Date;
  expiresAt: Date;
}

/** The status-list cache shared by every replica (Token Status List §8.3 caching; one row per list URI). */
export const statusListCacheStore = {
  async get(sql: Sql, uri: string): Promise<CachedStatusList | null> {
    const r = (
      await sql.query<{ uri: string; token: string; fetched_at: Date | string; expires_at: Date | string }>(
        'SELECT * FROM bridge_status_list_cache WHERE uri = $1',
        [uri],
      )
    ).rows[0];
    return r
      ? { uri: r.uri, token: r.token, fetchedAt: new Date(r.fetched_at), expiresAt: new Date(r.expires_at) }
      : null;
  },

  async put(sql: Sql, entry: CachedStatusList): Promise<void> {
    await sql.query(
      `INSERT INTO bridge_status_list_cache (uri, token, fetched_at, expires_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (uri) DO UPDATE SET token = EXCLUDED.token, fetched_at = EXCLUDED.fetched_at, expires_at = EXCLUDED.expires_at
       WHERE bridge_status_list_cache.fetched_at <= EXCLUDED.fetched_at`,
      [entry.uri, entry.token, entry.fetchedAt, entry.expiresAt],
    );
  },

  async deleteExpiredBefore(sql: Sql, before: Date): Promise<number> {
    return (await sql.query('DELETE FROM bridge_status_list_cache WHERE expires_at < $1', [before])).rowCount;
  },
};
