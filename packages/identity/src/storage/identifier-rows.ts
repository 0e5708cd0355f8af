import type { Sql } from '@tessera/platform';
import type { IdentifierType } from '../identity-store.js';
import type { IdentifierForm } from '../keys/identity-forms.js';
import { IDENTITY_COLUMNS, type IdentityRow } from './identity-rows.js';

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
        rows.map((r) => ({
          identity_id: r.identityId,
          type: r.type,
          key_version: r.version,
          mac: r.mac,
          binding_id: r.bindingId,
        })),
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

/** One probe of the lookup index: an identifier type and a MAC. */
export interface MacProbe {
  type: IdentifierType;
  mac: string;
}

/**
 * The identities of several probes in one statement (000 §4.3 POST /lookup, batched): each row carries the
 * 1-based position of its probe (`ord`), rows ordered by probe, then as `selectIdentities` orders them. The same
 * rule as identityIdsByMac applies to each probe: a KEY row counts only while its wallet binding is live.
 */
export async function identitiesByMacs(
  sql: Sql,
  probes: readonly MacProbe[],
): Promise<(IdentityRow & { ord: number })[]> {
  if (probes.length === 0) return [];
  const rows = await sql.query<IdentityRow & { ord: number }>(
    `SELECT q.ord::integer AS ord, ${IDENTITY_COLUMNS}
       FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS q(type, mac, ord)
       JOIN LATERAL (
            SELECT DISTINCT x.tenant_id, x.identity_id
              FROM identity_identifiers x
              LEFT JOIN wallet_bindings w ON w.tenant_id = x.tenant_id AND w.binding_id = x.binding_id
             WHERE x.type = q.type AND x.mac = q.mac AND (x.binding_id IS NULL OR w.soft_deleted_at IS NULL)
            ) m ON true
       JOIN identities i ON i.tenant_id = m.tenant_id AND i.internal_identity_id = m.identity_id
      ORDER BY q.ord, i.created_at, i.internal_identity_id`,
    [probes.map((p) => p.type), probes.map((p) => p.mac)],
    { prepareAs: 'identity.identities-by-macs' },
  );
  return rows.rows;
}
