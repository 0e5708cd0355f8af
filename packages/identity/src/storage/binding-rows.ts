import type { Sql } from '@tessera/platform';

/** SQL of wallet_bindings and federation_bindings as the store uses them. */
export interface BindingRef {
  bindingId: string;
  identityId: string;
}

interface BindingRefRow {
  binding_id: string;
  identity_id: string;
}

const toRef = (row: BindingRefRow | undefined): BindingRef | null =>
  row ? { bindingId: row.binding_id, identityId: row.identity_id } : null;

/** The live wallet binding whose KEY index row carries one of `macs`. */
export async function liveWalletBinding(sql: Sql, macs: readonly string[]): Promise<BindingRef | null> {
  const rows = await sql.query<BindingRefRow>(
    `SELECT w.binding_id, w.identity_id
       FROM identity_identifiers x
       JOIN wallet_bindings w ON w.tenant_id = x.tenant_id AND w.binding_id = x.binding_id
      WHERE x.type = 'KEY' AND x.mac = ANY($1::text[]) AND w.soft_deleted_at IS NULL
      LIMIT 1`,
    [macs],
  );
  return toRef(rows.rows[0]);
}

/**
 * Drops KEY index rows of soft-deleted bindings carrying one of `macs` (the retention job drops them when it
 * soft-deletes; this covers a binding soft-deleted otherwise), so that the holder key can be bound again.
 */
export async function unindexSoftDeletedHolder(sql: Sql, macs: readonly string[]): Promise<void> {
  await sql.query(
    `DELETE FROM identity_identifiers x USING wallet_bindings w
      WHERE x.type = 'KEY' AND x.mac = ANY($1::text[]) AND w.tenant_id = x.tenant_id AND w.binding_id = x.binding_id
        AND w.soft_deleted_at IS NOT NULL`,
    [macs],
  );
}

export async function insertWalletBinding(
  sql: Sql,
  row: { bindingId: string; identityId: string; sealed: string; nextSealed: string | null; now: Date },
): Promise<void> {
  await sql.query(
    `INSERT INTO wallet_bindings (binding_id, identity_id, sealed_holder_key, next_sealed_holder_key, created_at, last_used_at)
     VALUES ($1, $2, $3, $4, $5, $5)`,
    [row.bindingId, row.identityId, row.sealed, row.nextSealed, row.now],
  );
}

export async function deleteWalletBinding(sql: Sql, bindingId: string): Promise<void> {
  await sql.query(`DELETE FROM wallet_bindings WHERE binding_id = $1`, [bindingId]);
}

export async function touchWalletBinding(sql: Sql, bindingId: string, now: Date): Promise<void> {
  await sql.query(`UPDATE wallet_bindings SET last_used_at = $2 WHERE binding_id = $1`, [bindingId, now]);
}

/** The live federation binding whose subject MAC (current or next form) is one of `macs`. */
export async function liveFederationBinding(sql: Sql, macs: readonly string[]): Promise<BindingRef | null> {
  const rows = await sql.query<BindingRefRow>(
    `SELECT binding_id, identity_id FROM federation_bindings
      WHERE soft_deleted_at IS NULL AND (subject_mac = ANY($1::text[]) OR next_subject_mac = ANY($1::text[]))
      LIMIT 1`,
    [macs],
  );
  return toRef(rows.rows[0]);
}

/** False when a live binding of the same subject exists (a concurrent bind won). */
export async function insertFederationBinding(
  sql: Sql,
  row: {
    bindingId: string;
    identityId: string;
    issuer: string;
    mac: string;
    sealed: string;
    next: { mac: string; sealed: string } | null;
    now: Date;
  },
): Promise<boolean> {
  const result = await sql.query(
    `INSERT INTO federation_bindings
       (binding_id, identity_id, issuer, subject_mac, sealed_subject, next_subject_mac, next_sealed_subject, created_at, last_used_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
     ON CONFLICT DO NOTHING
     RETURNING binding_id`,
    [
      row.bindingId,
      row.identityId,
      row.issuer,
      row.mac,
      row.sealed,
      row.next?.mac ?? null,
      row.next?.sealed ?? null,
      row.now,
    ],
  );
  return result.rows.length > 0;
}

export async function touchFederationBinding(sql: Sql, bindingId: string, now: Date): Promise<void> {
  await sql.query(`UPDATE federation_bindings SET last_used_at = $2 WHERE binding_id = $1`, [bindingId, now]);
}
