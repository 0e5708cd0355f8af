import type { Sql } from '@tessera/platform';
import type { KeyVersions } from '../domain/key-migration.js';

/**
 * Which key versions the tenant's records are under. `current`: the forms every read uses. `next`: while a key
 * migration is open (IN_PROGRESS or FAILED), the versions its new forms are written under; every write then
 * writes both, so that the migration can complete, or roll back, without losing what was written meanwhile.
 */
export interface KeyContext {
  current: KeyVersions;
  next: KeyVersions | null;
}

interface KeyContextRow {
  dek_version: number;
  hmac_version: number;
  new_dek_version: number | null;
  new_hmac_version: number | null;
}

export async function readKeyContext(sql: Sql): Promise<KeyContext | null> {
  const rows = await sql.query<KeyContextRow>(
    `SELECT s.dek_version, s.hmac_version, m.new_dek_version, m.new_hmac_version
       FROM identity_key_state s
       LEFT JOIN key_migrations m ON m.tenant_id = s.tenant_id AND m.status IN ('IN_PROGRESS', 'FAILED')`,
  );
  const row = rows.rows[0];
  if (!row) return null;
  return {
    current: { dek: row.dek_version, hmac: row.hmac_version },
    next:
      row.new_dek_version === null || row.new_hmac_version === null
        ? null
        : { dek: row.new_dek_version, hmac: row.new_hmac_version },
  };
}

export async function insertKeyState(sql: Sql, versions: KeyVersions, now: Date): Promise<void> {
  await sql.query(
    `INSERT INTO identity_key_state (dek_version, hmac_version, updated_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
    [versions.dek, versions.hmac, now],
  );
}

export async function switchKeyState(sql: Sql, versions: KeyVersions, now: Date): Promise<void> {
  await sql.query(`UPDATE identity_key_state SET dek_version = $1, hmac_version = $2, updated_at = $3`, [
    versions.dek,
    versions.hmac,
    now,
  ]);
}

/**
 * Writers hold this tenant lock shared for the rest of their transaction; starting, completing and rolling back a
 * migration take it exclusively. So no write that read "no migration" (or "open migration") is still in flight
 * when that changes: each write's forms match the key context its transaction commits under.
 */
export async function lockKeyContextShared(sql: Sql, tenantId: string): Promise<void> {
  await sql.query(`SELECT pg_advisory_xact_lock_shared(hashtextextended($1, 0))`, [lockName(tenantId)]);
}

export async function lockKeyContextExclusive(sql: Sql, tenantId: string): Promise<void> {
  await sql.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [lockName(tenantId)]);
}

const lockName = (tenantId: string) => `tessera:identity-keys:${tenantId}`;
