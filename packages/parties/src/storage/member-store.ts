import type { Sql } from '@tessera/platform';
import type { PageRequest } from '../domain/pagination.js';
import { memberJson } from './views.js';

/**
 * SQL of group membership (001 §2.5: a member may be any party, including another group). Runs in the caller's
 * tenant unit of work. Rows of deleted members stay (history) but no read shows them.
 */
export const memberStore = {
  /**
   * Serialises membership changes of the tenant for the rest of the transaction: two concurrent additions (A into
   * B, B into A) could each pass the cycle check alone.
   */
  async lockTenantMembership(sql: Sql): Promise<void> {
    await sql.query(
      `SELECT pg_advisory_xact_lock(hashtext('party-group-members:' || current_setting('app.tenant_id')))`,
    );
  },

  /**
   * A membership path that adding `candidates` to `groupId` would close into a cycle: [candidate, ..., groupId],
   * or null. Walks down from each candidate through the live groups among members.
   */
  async cyclePath(sql: Sql, groupId: string, candidates: readonly string[]): Promise<string[] | null> {
    if (candidates.length === 0) return null;
    const result = await sql.query<{ path: string[] }>(
      `WITH RECURSIVE walk(node, path) AS (
         SELECT c, ARRAY[c] FROM unnest($2::uuid[]) AS c
         UNION ALL
         SELECT gm.member_id, w.path || gm.member_id
           FROM walk w
           JOIN party_group_members gm ON gm.group_id = w.node
           JOIN parties q ON q.tenant_id = gm.tenant_id AND q.id = gm.member_id
                         AND q.party_type = 'GROUP' AND q.deleted_at IS NULL
          WHERE w.node <> $1 AND NOT gm.member_id = ANY (w.path)
       )
       SELECT path::text[] AS path FROM walk WHERE node = $1 ORDER BY cardinality(path) LIMIT 1`,
      [groupId, candidates],
    );
    return result.rows[0]?.path ?? null;
  },

  async list(sql: Sql, groupId: string, page: PageRequest): Promise<{ members: unknown[]; hasMore: boolean }> {
    const result = await sql.query<{ member: unknown }>(
      `SELECT ${memberJson('q')} AS member FROM party_group_members gm
         JOIN parties q ON q.tenant_id = gm.tenant_id AND q.id = gm.member_id AND q.deleted_at IS NULL
        WHERE gm.group_id = $1
        ORDER BY q.display_name, q.id LIMIT $2 OFFSET $3`,
      [groupId, page.limit + 1, page.offset],
    );
    const members = result.rows.map((r) => r.member);
    return { members: members.slice(0, page.limit), hasMore: members.length > page.limit };
  },

  /** Adds a member; answers whether it was new (a repeated PUT changes nothing). */
  async add(sql: Sql, groupId: string, memberId: string, now: Date): Promise<boolean> {
    const result = await sql.query(
      `INSERT INTO party_group_members (group_id, member_id, added_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
      [groupId, memberId, now],
    );
    return result.rowCount === 1;
  },

  async remove(sql: Sql, groupId: string, memberId: string): Promise<boolean> {
    const result = await sql.query(`DELETE FROM party_group_members WHERE group_id = $1 AND member_id = $2`, [
      groupId,
      memberId,
    ]);
    return result.rowCount === 1;
  },

  /** Makes the members exactly `memberIds`. */
  async replace(sql: Sql, groupId: string, memberIds: readonly string[], now: Date): Promise<void> {
    await sql.query(`DELETE FROM party_group_members WHERE group_id = $1 AND NOT member_id = ANY ($2::uuid[])`, [
      groupId,
      memberIds,
    ]);
    await sql.query(
      `INSERT INTO party_group_members (group_id, member_id, added_at)
       SELECT $1, m, $3 FROM unnest($2::uuid[]) AS m ON CONFLICT DO NOTHING`,
      [groupId, memberIds, now],
    );
  },
};
