import type { Sql } from '@tessera/platform';

/**
 * SQL of the binding retention (000 §3.3, §8) for the tenant of the unit of work. Rows are locked in binding id
 * order, the order a key migration batch locks them in, so that the two never wait on each other in a cycle.
 */
export interface RetentionCounts {
  walletSoftDeleted: number;
  federationSoftDeleted: number;
  walletHardDeleted: number;
  federationHardDeleted: number;
}

/**
 * Soft-deletes the live bindings last used (or, never used, created) at or before `inactiveBefore`. A wallet
 * binding's KEY index rows go at once: a soft-deleted binding answers no lookup, and the holder key may be bound
 * again.
 */
export async function softDeleteInactive(
  sql: Sql,
  inactiveBefore: Date,
  now: Date,
): Promise<Pick<RetentionCounts, 'walletSoftDeleted' | 'federationSoftDeleted'>> {
  const wallet = await sql.query<{ n: number | string }>(
    `WITH soft AS (
       UPDATE wallet_bindings SET soft_deleted_at = $2
        WHERE binding_id IN (SELECT binding_id FROM wallet_bindings
                              WHERE soft_deleted_at IS NULL AND COALESCE(last_used_at, created_at) <= $1
                              ORDER BY binding_id FOR UPDATE)
        RETURNING binding_id
     ), unindexed AS (
       DELETE FROM identity_identifiers WHERE binding_id IN (SELECT binding_id FROM soft) RETURNING 1
     )
     SELECT count(*) AS n FROM soft`,
    [inactiveBefore, now],
  );
  const federation = await sql.query(
    `UPDATE federation_bindings SET soft_deleted_at = $2
      WHERE binding_id IN (SELECT binding_id FROM federation_bindings
                            WHERE soft_deleted_at IS NULL AND COALESCE(last_used_at, created_at) <= $1
                            ORDER BY binding_id FOR UPDATE)`,
    [inactiveBefore, now],
  );
  return { walletSoftDeleted: Number(wallet.rows[0]!.n), federationSoftDeleted: federation.rowCount };
}

/** Hard-deletes the bindings soft-deleted at or before `softDeletedBefore`. */
export async function hardDeleteExpired(
  sql: Sql,
  softDeletedBefore: Date,
): Promise<Pick<RetentionCounts, 'walletHardDeleted' | 'federationHardDeleted'>> {
  const wallet = await sql.query(
    `DELETE FROM wallet_bindings
      WHERE binding_id IN (SELECT binding_id FROM wallet_bindings WHERE soft_deleted_at <= $1 ORDER BY binding_id FOR UPDATE)`,
    [softDeletedBefore],
  );
  const federation = await sql.query(
    `DELETE FROM federation_bindings
      WHERE binding_id IN (SELECT binding_id FROM federation_bindings WHERE soft_deleted_at <= $1 ORDER BY binding_id FOR UPDATE)`,
    [softDeletedBefore],
  );
  return { walletHardDeleted: wallet.rowCount, federationHardDeleted: federation.rowCount };
}
