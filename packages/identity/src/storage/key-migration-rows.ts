import type { Sql } from '@tessera/platform';
import {
  sourcesOf,
  type KeyMigrationCounters,
  type KeyMigrationRecord,
  type KeyMigrationStatus,
  type KeyVersions,
} from '../domain/key-migration.js';

/** SQL of the key_migrations table. */
interface MigrationRow {
  tenant_id: string;
  id: string;
  status: KeyMigrationStatus;
  old_dek_version: number;
  new_dek_version: number;
  old_hmac_version: number;
  new_hmac_version: number;
  batch_size: number;
  records_processed: number | string | bigint;
  records_failed: number | string | bigint;
  records_skipped: number | string | bigint;
  records_purged: number | string | bigint;
  batches_committed: number;
  last_cursor: string | null;
  started_at: Date | string;
  updated_at: Date | string;
  finished_at: Date | string | null;
  error: string | null;
}

/** A migration and where its runner stands: the last identity a committed batch visited (kept out of the record). */
export interface MigrationState {
  record: KeyMigrationRecord;
  cursor: string | null;
}

const COLUMNS = `tenant_id, id, status, old_dek_version, new_dek_version, old_hmac_version, new_hmac_version, batch_size,
  records_processed, records_failed, records_skipped, records_purged, batches_committed, last_cursor, started_at,
  updated_at, finished_at, error`;

export async function insertMigration(
  sql: Sql,
  m: { id: string; from: KeyVersions; to: KeyVersions; batchSize: number; now: Date },
): Promise<MigrationState> {
  const rows = await sql.query<MigrationRow>(
    `INSERT INTO key_migrations (id, status, old_dek_version, new_dek_version, old_hmac_version, new_hmac_version,
                                 batch_size, started_at, updated_at)
     VALUES ($1, 'IN_PROGRESS', $2, $3, $4, $5, $6, $7, $7)
     RETURNING ${COLUMNS}`,
    [m.id, m.from.dek, m.to.dek, m.from.hmac, m.to.hmac, m.batchSize, m.now],
  );
  return toState(rows.rows[0]!);
}

/** The tenant's open migration (IN_PROGRESS or FAILED), if any; locked when asked. */
export async function openMigration(sql: Sql, options: { lock?: boolean } = {}): Promise<MigrationState | null> {
  const rows = await sql.query<MigrationRow>(
    `SELECT ${COLUMNS} FROM key_migrations WHERE status IN ('IN_PROGRESS', 'FAILED')${options.lock ? ' FOR UPDATE' : ''}`,
  );
  return rows.rows[0] ? toState(rows.rows[0]) : null;
}

export async function lockMigration(sql: Sql, id: string): Promise<MigrationState | null> {
  const rows = await sql.query<MigrationRow>(`SELECT ${COLUMNS} FROM key_migrations WHERE id = $1 FOR UPDATE`, [id]);
  return rows.rows[0] ? toState(rows.rows[0]) : null;
}

/** The tenant's migrations, newest first. */
export async function listMigrations(sql: Sql, limit = 20): Promise<KeyMigrationRecord[]> {
  const rows = await sql.query<MigrationRow>(
    `SELECT ${COLUMNS} FROM key_migrations ORDER BY started_at DESC, id DESC LIMIT $1`,
    [limit],
  );
  return rows.rows.map((r) => toState(r).record);
}

/** Adds one batch's counts and moves the cursor, in the batch's own transaction. */
export async function advanceMigration(
  sql: Sql,
  id: string,
  counts: KeyMigrationCounters,
  cursor: string,
  now: Date,
): Promise<MigrationState> {
  const rows = await sql.query<MigrationRow>(
    `UPDATE key_migrations
        SET records_processed = records_processed + $2, records_failed = records_failed + $3,
            records_skipped = records_skipped + $4, records_purged = records_purged + $5,
            batches_committed = batches_committed + 1, last_cursor = $6, updated_at = $7
      WHERE id = $1
      RETURNING ${COLUMNS}`,
    [id, counts.recordsProcessed, counts.recordsFailed, counts.recordsSkipped, counts.recordsPurged, cursor, now],
  );
  return toState(rows.rows[0]!);
}

/**
 * Moves a migration to `status`, only from a state the transition table allows (domain/key-migration.ts); null when
 * the migration is in no such state (another actor moved it first).
 */
export async function setMigrationStatus(
  sql: Sql,
  id: string,
  status: KeyMigrationStatus,
  change: { now: Date; error?: string | null; finished?: boolean },
): Promise<MigrationState | null> {
  const rows = await sql.query<MigrationRow>(
    `UPDATE key_migrations SET status = $2, error = $3, updated_at = $4::timestamptz,
            finished_at = CASE WHEN $5::boolean THEN $4::timestamptz ELSE NULL END
      WHERE id = $1 AND status = ANY($6::text[])
      RETURNING ${COLUMNS}`,
    [id, status, change.error ?? null, change.now, change.finished ?? false, sourcesOf(status)],
  );
  return rows.rows[0] ? toState(rows.rows[0]) : null;
}

const toIso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

function toState(row: MigrationRow): MigrationState {
  return {
    cursor: row.last_cursor,
    record: {
      id: row.id,
      tenantId: row.tenant_id,
      status: row.status,
      from: { dek: row.old_dek_version, hmac: row.old_hmac_version },
      to: { dek: row.new_dek_version, hmac: row.new_hmac_version },
      batchSize: row.batch_size,
      recordsProcessed: Number(row.records_processed),
      recordsFailed: Number(row.records_failed),
      recordsSkipped: Number(row.records_skipped),
      recordsPurged: Number(row.records_purged),
      batchesCommitted: row.batches_committed,
      startedAt: toIso(row.started_at),
      updatedAt: toIso(row.updated_at),
      finishedAt: row.finished_at === null ? null : toIso(row.finished_at),
      error: row.error,
    },
  };
}
