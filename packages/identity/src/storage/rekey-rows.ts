import type { Sql } from '@tessera/platform';
import type { IdentifierForm } from '../keys/identity-forms.js';
import { insertIdentifiers } from './identifier-rows.js';

/**
 * SQL of the key migration's batches: read a batch of identities with their bindings (locked, so that no writer
 * changes them under the runner), write their forms under the new keys, and, once every record has them, promote
 * those forms to current (completion) or drop them (rollback).
 */
export interface RekeyIdentityRow {
  internal_identity_id: string;
  encrypted_claims: string;
  next_encrypted_claims: string | null;
}

export interface RekeyWalletRow {
  binding_id: string;
  identity_id: string;
  sealed_holder_key: string;
  next_sealed_holder_key: string | null;
  soft_deleted_at: Date | string | null;
}

export interface RekeyFederationRow {
  binding_id: string;
  identity_id: string;
  issuer: string;
  sealed_subject: string;
  next_sealed_subject: string | null;
  soft_deleted_at: Date | string | null;
}

export interface RekeyBatchRows {
  identities: RekeyIdentityRow[];
  wallet: RekeyWalletRow[];
  federation: RekeyFederationRow[];
}

export interface NextFormWrites {
  claims: { identityId: string; sealed: string }[];
  identifiers: (IdentifierForm & { identityId: string })[];
  wallet: { bindingId: string; sealed: string }[];
  federation: { bindingId: string; sealed: string; mac: string }[];
  purgeWallet: string[];
  purgeFederation: string[];
}

/** The next `limit` identities after the cursor, in id order, with their bindings; all locked FOR UPDATE. */
export async function lockRekeyBatch(sql: Sql, cursor: string | null, limit: number): Promise<RekeyBatchRows> {
  const identities = await sql.query<RekeyIdentityRow>(
    `SELECT internal_identity_id, encrypted_claims, next_encrypted_claims FROM identities
      WHERE $1::uuid IS NULL OR internal_identity_id > $1::uuid
      ORDER BY internal_identity_id
      LIMIT $2
      FOR UPDATE`,
    [cursor, limit],
  );
  const ids = identities.rows.map((r) => r.internal_identity_id);
  if (ids.length === 0) return { identities: [], wallet: [], federation: [] };
  const wallet = await sql.query<RekeyWalletRow>(
    `SELECT binding_id, identity_id, sealed_holder_key, next_sealed_holder_key, soft_deleted_at FROM wallet_bindings
      WHERE identity_id = ANY($1::uuid[]) ORDER BY binding_id FOR UPDATE`,
    [ids],
  );
  const federation = await sql.query<RekeyFederationRow>(
    `SELECT binding_id, identity_id, issuer, sealed_subject, next_sealed_subject, soft_deleted_at FROM federation_bindings
      WHERE identity_id = ANY($1::uuid[]) ORDER BY binding_id FOR UPDATE`,
    [ids],
  );
  return { identities: identities.rows, wallet: wallet.rows, federation: federation.rows };
}

export async function writeNextForms(sql: Sql, writes: NextFormWrites): Promise<void> {
  if (writes.purgeWallet.length > 0)
    await sql.query(`DELETE FROM wallet_bindings WHERE binding_id = ANY($1::uuid[])`, [writes.purgeWallet]);
  if (writes.purgeFederation.length > 0)
    await sql.query(`DELETE FROM federation_bindings WHERE binding_id = ANY($1::uuid[])`, [writes.purgeFederation]);
  if (writes.claims.length > 0) {
    await sql.query(
      `UPDATE identities i SET next_encrypted_claims = r.sealed
         FROM jsonb_to_recordset($1::text::jsonb) AS r(id uuid, sealed text)
        WHERE i.internal_identity_id = r.id`,
      [JSON.stringify(writes.claims.map((c) => ({ id: c.identityId, sealed: c.sealed })))],
    );
  }
  if (writes.wallet.length > 0) {
    await sql.query(
      `UPDATE wallet_bindings w SET next_sealed_holder_key = r.sealed
         FROM jsonb_to_recordset($1::text::jsonb) AS r(id uuid, sealed text)
        WHERE w.binding_id = r.id`,
      [JSON.stringify(writes.wallet.map((w) => ({ id: w.bindingId, sealed: w.sealed })))],
    );
  }
  if (writes.federation.length > 0) {
    await sql.query(
      `UPDATE federation_bindings f SET next_sealed_subject = r.sealed, next_subject_mac = r.mac
         FROM jsonb_to_recordset($1::text::jsonb) AS r(id uuid, sealed text, mac text)
        WHERE f.binding_id = r.id`,
      [JSON.stringify(writes.federation.map((f) => ({ id: f.bindingId, sealed: f.sealed, mac: f.mac })))],
    );
  }
  await insertIdentifiers(sql, writes.identifiers);
}

/** Records still without their form under the new keys (an identity, or a binding kept for retention). */
export async function countIncomplete(sql: Sql): Promise<number> {
  const rows = await sql.query<{ incomplete: number | string | bigint }>(
    `SELECT (SELECT count(*) FROM identities WHERE next_encrypted_claims IS NULL)
          + (SELECT count(*) FROM wallet_bindings WHERE next_sealed_holder_key IS NULL)
          + (SELECT count(*) FROM federation_bindings WHERE next_sealed_subject IS NULL) AS incomplete`,
  );
  return Number(rows.rows[0]!.incomplete);
}

/** Completion: the new forms become the current ones, and the index rows of the old HMAC version go. */
export async function promoteNextForms(sql: Sql, oldHmacVersion: number): Promise<void> {
  await sql.query(
    `UPDATE identities SET encrypted_claims = next_encrypted_claims, next_encrypted_claims = NULL
      WHERE next_encrypted_claims IS NOT NULL`,
  );
  await sql.query(
    `UPDATE wallet_bindings SET sealed_holder_key = next_sealed_holder_key, next_sealed_holder_key = NULL
      WHERE next_sealed_holder_key IS NOT NULL`,
  );
  await sql.query(
    `UPDATE federation_bindings
        SET subject_mac = next_subject_mac, sealed_subject = next_sealed_subject,
            next_subject_mac = NULL, next_sealed_subject = NULL
      WHERE next_subject_mac IS NOT NULL`,
  );
  await sql.query(`DELETE FROM identity_identifiers WHERE key_version = $1`, [oldHmacVersion]);
}

/** Rollback: the forms under the new keys go; the current forms never stopped serving. */
export async function dropNextForms(sql: Sql, newHmacVersion: number): Promise<void> {
  await sql.query(`UPDATE identities SET next_encrypted_claims = NULL WHERE next_encrypted_claims IS NOT NULL`);
  await sql.query(`UPDATE wallet_bindings SET next_sealed_holder_key = NULL WHERE next_sealed_holder_key IS NOT NULL`);
  await sql.query(
    `UPDATE federation_bindings SET next_subject_mac = NULL, next_sealed_subject = NULL WHERE next_subject_mac IS NOT NULL`,
  );
  await sql.query(`DELETE FROM identity_identifiers WHERE key_version = $1`, [newHmacVersion]);
}
