import type { Sql } from '@tessera/platform';

/**
 * Digests of accepted presentations (security checklist: "replay of an accepted vp_token into a new session is
 * rejected"). Shared by every tenant and replica; holds SHA-256 digests and times only.
 */
export const replayIndex = {
  /** The digests of `digests` already recorded. */
  async findUsed(sql: Sql, digests: readonly string[]): Promise<string[]> {
    if (digests.length === 0) return [];
    return (
      await sql.query<{ digest: string }>(
        'SELECT digest FROM bridge_used_presentations WHERE digest = ANY($1::text[])',
        [[...digests]],
      )
    ).rows.map((r) => r.digest);
  },

  /** Records the digests; a digest recorded by a concurrent acceptance fails the unit of work (unique violation). */
  async record(sql: Sql, digests: readonly string[], at: Date): Promise<void> {
    for (const digest of digests)
      await sql.query('INSERT INTO bridge_used_presentations (digest, used_at) VALUES ($1, $2)', [digest, at]);
  },

  async deleteBefore(sql: Sql, before: Date): Promise<number> {
    return (await sql.query('DELETE FROM bridge_used_presentations WHERE used_at < $1', [before])).rowCount;
  },
};
