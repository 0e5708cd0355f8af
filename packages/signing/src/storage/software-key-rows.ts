import type { Sql } from '@tessera/platform';

/** SQL of signing_software_keys (the software provider's sealed private keys). */
export interface SoftwareKeyRow {
  provider_kid: string;
  key_type: string;
  public_key_spki: string;
  sealed_private_key: string;
}

const COLUMNS = 'provider_kid, key_type, public_key_spki, sealed_private_key';

export async function findSoftwareKey(sql: Sql, providerKid: string): Promise<SoftwareKeyRow | null> {
  const { rows } = await sql.query<SoftwareKeyRow>(
    `SELECT ${COLUMNS} FROM signing_software_keys WHERE provider_kid = $1`,
    [providerKid],
  );
  return rows[0] ?? null;
}

export async function findSoftwareKeyBySpki(sql: Sql, spkiSha256: string): Promise<SoftwareKeyRow | null> {
  const { rows } = await sql.query<SoftwareKeyRow>(
    `SELECT ${COLUMNS} FROM signing_software_keys WHERE spki_sha256 = $1 ORDER BY created_at LIMIT 1`,
    [spkiSha256],
  );
  return rows[0] ?? null;
}

export async function insertSoftwareKey(
  sql: Sql,
  row: SoftwareKeyRow & { spki_sha256: string; created_at: Date },
): Promise<boolean> {
  const { rowCount } = await sql.query(
    `INSERT INTO signing_software_keys (provider_kid, key_type, public_key_spki, spki_sha256, sealed_private_key, created_at)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
    [row.provider_kid, row.key_type, row.public_key_spki, row.spki_sha256, row.sealed_private_key, row.created_at],
  );
  return rowCount === 1;
}
