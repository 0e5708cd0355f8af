import type { Sql } from '@tessera/platform';
import type { IdentifierType } from '../identity-store.js';
import type { IdentifierForm } from '../keys/identity-forms.js';

/** SQL of the HMAC lookup index (identity_identifiers). */

/**
 * Inserts index rows, skipping those that exist and KEY rows whose wallet binding is no longer live (soft-deleted
 * by the retention job meanwhile); answers how many were new.
 */
export async function insertIdentifiers(
  sql: Sql,
  rows: readonly (IdentifierForm & { identityId: string })[],
): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await sql.query(
    `INSERT INTO identity_identifiers (identity_id, type, key_version, mac, binding_id)
     SELECT r.identity_id, r.type, r.key_version, r.mac, r.binding_id
       FROM jsonb_to_recordset($1::text::jsonb)
         AS r(identity_id uuid, type text, key_version integer, mac text, binding_id uuid)
      WHERE r.binding_id IS NULL
         OR EXISTS (SELECT 1 FROM wallet_bindings w WHERE w.binding_id = r.binding_id AND w.soft_deleted_at IS NULL)
     ON CONFLICT DO NOTHING`,
    [
      JSON.stringify(
        rows.map((r) => ({ identity_id: r.identityId, type: r.type, key_version: r.version, mac: r.mac, binding_id: r.bindingId })),
      ),
    ],
  );
  return result.rowCount;
}

export async function deleteClaimIdentifiers(sql: Sql, identityId: string): Promise<void> {
  await sql.query(`DELETE FROM identity_identifiers WHERE identity_id = $1 AND type <> 'KEY'`, [identityId]);
}

/**
 * Identities with an index row of this type whose MAC is one of `macs`. MACs under different keys never meet, so
 * the version needs no filter; a KEY row counts only while its wallet binding is live.
 */
export async function identityIdsByMac(sql: Sql, type: IdentifierType, macs: readonly string[]): Promise<string[]> {
  const rows = await sql.query<{ identity_id: string }>(
    `SELECT DISTINCT x.identity_id
       FROM identity_identifiers x
       LEFT JOIN wallet_bindings w ON w.tenant_id = x.tenant_id AND w.binding_id = x.binding_id
      WHERE x.type = $1 AND x.mac = ANY($2::text[]) AND (x.binding_id IS NULL OR w.soft_deleted_at IS NULL)`,
    [type, macs],
  );
  return rows.rows.map((r) => r.identity_id);
}
