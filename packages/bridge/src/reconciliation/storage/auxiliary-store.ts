import type { Sql } from '@tessera/platform';

/**
 * SQL of the auxiliary data records (000 §2.6). Runs inside the caller's tenant unit of work: row-level security
 * scopes every statement to the tenant. The data column holds the sealed canonical JSON; sealing is the caller's.
 */
export interface AuxiliaryRow {
  category: string;
  dataSealed: string;
  storedBy: string;
  storedAt: Date;
  expiresAt: Date | null;
}

interface Row {
  category: string;
  data_sealed: string;
  stored_by: string;
  stored_at: Date | string;
  expires_at: Date | string | null;
}

const toDate = (v: Date | string) => (v instanceof Date ? v : new Date(v));

const toRow = (r: Row): AuxiliaryRow => ({
  category: r.category,
  dataSealed: r.data_sealed,
  storedBy: r.stored_by,
  storedAt: toDate(r.stored_at),
  expiresAt: r.expires_at === null ? null : toDate(r.expires_at),
});

export const auxiliaryStore = {
  /**
   * The categories among `visible` holding live data for the identity (a client that may see none costs no
   * query).
   */
  async liveCategories(sql: Sql, identityId: string, visible: ReadonlySet<string>, now: Date): Promise<string[]> {
    if (visible.size === 0) return [];
    const result = await sql.query<{ category: string }>(
      `SELECT category FROM reconciliation_auxiliary_data
        WHERE identity_id = $1 AND category = ANY($2::text[]) AND (expires_at IS NULL OR expires_at > $3)
        ORDER BY category`,
      [identityId, [...visible], now],
    );
    return result.rows.map((r) => r.category);
  },

  /**
   * The same for several identities in one statement (a batch of lookups): identity id → its categories among
   * `visible` holding live data, sorted. Identities without any are absent from the map.
   */
  async liveCategoriesOf(
    sql: Sql,
    identityIds: readonly string[],
    visible: ReadonlySet<string>,
    now: Date,
  ): Promise<Map<string, string[]>> {
    const found = new Map<string, string[]>();
    if (identityIds.length === 0 || visible.size === 0) return found;
    const result = await sql.query<{ identity_id: string; category: string }>(
      `SELECT identity_id, category FROM reconciliation_auxiliary_data
        WHERE identity_id = ANY($1::uuid[]) AND category = ANY($2::text[]) AND (expires_at IS NULL OR expires_at > $3)
        ORDER BY identity_id, category`,
      [identityIds, [...visible], now],
      { prepareAs: 'reconciliation.live-categories-of' },
    );
    for (const { identity_id: id, category } of result.rows) {
      const list = found.get(id);
      if (list) list.push(category);
      else found.set(id, [category]);
    }
    return found;
  },

  async getLive(sql: Sql, identityId: string, category: string, now: Date): Promise<AuxiliaryRow | null> {
    const result = await sql.query<Row>(
      `SELECT category, data_sealed, stored_by, stored_at, expires_at FROM reconciliation_auxiliary_data
        WHERE identity_id = $1 AND category = $2 AND (expires_at IS NULL OR expires_at > $3)`,
      [identityId, category, now],
    );
    const row = result.rows[0];
    return row ? toRow(row) : null;
  },

  /**
   * Creates or entirely replaces the record (never a merge, 000 §3.3). An expired record counts as absent: it is
   * removed first, so that the answer is "created". Of two concurrent first writes one creates, the other
   * replaces (the primary key serialises them). Answers whether the record was created.
   */
  async put(sql: Sql, identityId: string, row: AuxiliaryRow, now: Date): Promise<boolean> {
    await sql.query(
      `DELETE FROM reconciliation_auxiliary_data
        WHERE identity_id = $1 AND category = $2 AND expires_at IS NOT NULL AND expires_at <= $3`,
      [identityId, row.category, now],
    );
    const result = await sql.query<{ created: boolean }>(
      `INSERT INTO reconciliation_auxiliary_data (identity_id, category, data_sealed, stored_by, stored_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (tenant_id, identity_id, category) DO UPDATE
         SET data_sealed = EXCLUDED.data_sealed, stored_by = EXCLUDED.stored_by,
             stored_at = EXCLUDED.stored_at, expires_at = EXCLUDED.expires_at
       RETURNING (xmax = 0) AS created`,
      [identityId, row.category, row.dataSealed, row.storedBy, row.storedAt, row.expiresAt],
    );
    return result.rows[0]!.created;
  },

  async delete(sql: Sql, identityId: string, category: string): Promise<number> {
    return (
      await sql.query('DELETE FROM reconciliation_auxiliary_data WHERE identity_id = $1 AND category = $2', [
        identityId,
        category,
      ])
    ).rowCount;
  },

  /** Every category of the identity (erasure). */
  async deleteAll(sql: Sql, identityId: string): Promise<number> {
    return (await sql.query('DELETE FROM reconciliation_auxiliary_data WHERE identity_id = $1', [identityId])).rowCount;
  },

  /** Records expired at `now`, in every tenant (the retention job runs with a platform unit of work). */
  async purgeExpired(sql: Sql, now: Date): Promise<number> {
    return (
      await sql.query('DELETE FROM reconciliation_auxiliary_data WHERE expires_at IS NOT NULL AND expires_at <= $1', [
        now,
      ])
    ).rowCount;
  },
};
