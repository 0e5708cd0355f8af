import type { Sql } from '@tessera/platform';

/** SQL of the identities table (the store and the key migration speak through these functions only). */
export interface IdentityRow {
  internal_identity_id: string;
  encrypted_claims: string;
  acr: string;
  amr: string[];
  created_at: Date | string;
  last_authenticated_at: Date | string | null;
  wallet_bound: boolean;
  federation_bound: boolean;
}

/** The columns of an IdentityRow, over `identities i` (binding flags count live bindings only). */
export const IDENTITY_COLUMNS = `i.internal_identity_id, i.encrypted_claims, i.acr, i.amr, i.created_at, i.last_authenticated_at,
            EXISTS (SELECT 1 FROM wallet_bindings w
                     WHERE w.tenant_id = i.tenant_id AND w.identity_id = i.internal_identity_id
                       AND w.soft_deleted_at IS NULL) AS wallet_bound,
            EXISTS (SELECT 1 FROM federation_bindings f
                     WHERE f.tenant_id = i.tenant_id AND f.identity_id = i.internal_identity_id
                       AND f.soft_deleted_at IS NULL) AS federation_bound`;

export async function selectIdentities(sql: Sql, ids: readonly string[]): Promise<IdentityRow[]> {
  if (ids.length === 0) return [];
  const rows = await sql.query<IdentityRow>(
    `SELECT ${IDENTITY_COLUMNS}
       FROM identities i
      WHERE i.internal_identity_id = ANY($1::uuid[])
      ORDER BY i.created_at, i.internal_identity_id`,
    [ids],
  );
  return rows.rows;
}

export async function insertIdentity(
  sql: Sql,
  row: { id: string; sealed: string; nextSealed: string | null; acr: string; amr: string[]; now: Date },
): Promise<void> {
  await sql.query(
    `INSERT INTO identities (internal_identity_id, encrypted_claims, next_encrypted_claims, acr, amr, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5::text::jsonb, $6, $6)`,
    [row.id, row.sealed, row.nextSealed, row.acr, JSON.stringify(row.amr), row.now],
  );
}

export async function replaceClaims(
  sql: Sql,
  id: string,
  sealed: string,
  nextSealed: string | null,
  now: Date,
): Promise<void> {
  await sql.query(
    `UPDATE identities SET encrypted_claims = $2, next_encrypted_claims = $3, updated_at = $4
      WHERE internal_identity_id = $1`,
    [id, sealed, nextSealed, now],
  );
}

/** Locks the identity against a concurrent writer or key migration batch; false when it does not exist here. */
export async function lockIdentity(sql: Sql, id: string): Promise<boolean> {
  const rows = await sql.query(`SELECT 1 FROM identities WHERE internal_identity_id = $1 FOR UPDATE`, [id]);
  return rows.rows.length > 0;
}

export async function touchIdentity(sql: Sql, id: string, now: Date): Promise<void> {
  await sql.query(`UPDATE identities SET last_authenticated_at = $2 WHERE internal_identity_id = $1`, [id, now]);
}

/** Bindings and index rows go with it (ON DELETE CASCADE). */
export async function deleteIdentity(sql: Sql, id: string): Promise<void> {
  await sql.query(`DELETE FROM identities WHERE internal_identity_id = $1`, [id]);
}
