import type { Sql } from '@tessera/platform';
import type { KeyKind } from '../domain/algorithms.js';
import type { AccessLevel, KeyEntryRecord, RoleRestriction } from '../domain/key-entry.js';

/** SQL of signing_key_entries. */
interface Row {
  kid: string;
  provider_id: string;
  provider_kid: string | null;
  key_kind: KeyKind;
  public_key_spki: string;
  certificate: string | null;
  certificate_chain: string[];
  access_level: AccessLevel;
  role_restrictions: RoleRestriction[];
  subject_id: string;
  created_at: Date;
}

const b64 = (value: string) => Buffer.from(value, 'base64');

const toRecord = (row: Row): KeyEntryRecord => ({
  kid: row.kid,
  providerId: row.provider_id,
  providerKid: row.provider_kid,
  keyKind: row.key_kind,
  publicKeySpki: b64(row.public_key_spki),
  certificate: row.certificate === null ? null : b64(row.certificate),
  certificateChain: row.certificate_chain.map(b64),
  access: { subjectId: row.subject_id, accessLevel: row.access_level, roleRestrictions: row.role_restrictions },
  createdAt: new Date(row.created_at),
});

export async function findKeyEntry(sql: Sql, kid: string): Promise<KeyEntryRecord | null> {
  const { rows } = await sql.query<Row>(
    `SELECT kid, provider_id, provider_kid, key_kind, public_key_spki, certificate, certificate_chain,
            access_level, role_restrictions, subject_id, created_at
       FROM signing_key_entries WHERE kid = $1`,
    [kid],
  );
  return rows[0] ? toRecord(rows[0]) : null;
}

/** Inserts the entry; false when the kid is taken. */
export async function insertKeyEntry(sql: Sql, entry: KeyEntryRecord): Promise<boolean> {
  const { rowCount } = await sql.query(
    `INSERT INTO signing_key_entries (kid, provider_id, provider_kid, key_kind, public_key_spki, certificate,
                                      certificate_chain, access_level, role_restrictions, subject_id, created_at,
                                      updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9::jsonb, $10, $11, $11)
     ON CONFLICT DO NOTHING`,
    [
      entry.kid,
      entry.providerId,
      entry.providerKid,
      entry.keyKind,
      entry.publicKeySpki.toString('base64'),
      entry.certificate?.toString('base64') ?? null,
      JSON.stringify(entry.certificateChain.map((c) => c.toString('base64'))),
      entry.access.accessLevel,
      JSON.stringify(entry.access.roleRestrictions),
      entry.access.subjectId,
      entry.createdAt,
    ],
  );
  return rowCount === 1;
}

/** Links an entry that has no provider key yet (operation 6 on an imported certificate). */
export async function linkKeyEntry(
  sql: Sql,
  update: { kid: string; providerId: string; providerKid: string; access: KeyEntryRecord['access'] | null; now: Date },
): Promise<boolean> {
  const { rowCount } = await sql.query(
    `UPDATE signing_key_entries
        SET provider_kid = $2, updated_at = $3, provider_id = $6,
            access_level = COALESCE($4, access_level),
            role_restrictions = COALESCE($5::jsonb, role_restrictions)
      WHERE kid = $1 AND provider_kid IS NULL`,
    [
      update.kid,
      update.providerKid,
      update.now,
      update.access?.accessLevel ?? null,
      update.access ? JSON.stringify(update.access.roleRestrictions) : null,
      update.providerId,
    ],
  );
  return rowCount === 1;
}
