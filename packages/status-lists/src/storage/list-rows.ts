import { stageAuditEventsFrom, type PendingAuditEvent, type Sql } from '@tessera/platform';
import type { ListConfiguration, ListType, StatusPurpose } from '../domain/list-definition.js';
import type { StatusBits } from '../domain/status-bits.js';

/** SQL of the status_lists table (docs in migrations/0001_status_lists.sql). Runs inside `db.withTenant*`. */
export const CHUNK_BYTES = 1024;

export interface StoredList extends ListConfiguration {
  listId: string;
  seriesId: string;
  generation: number;
  keyAlias: string;
  correlationId: string | null;
  ttlSeconds: number;
  validitySeconds: number;
  permutationKey: Uint8Array;
  allocated: number;
  /** bigint as text: both engines agree on it. */
  version: string;
}

export interface ListRow {
  list_id: string;
  series_id: string;
  generation: number;
  type: ListType;
  status_purpose: StatusPurpose;
  bits: number;
  length: number;
  issuer: string;
  key_alias: string;
  proof_format: 'jwt';
  correlation_id: string | null;
  ttl_seconds: number;
  validity_seconds: number;
  permutation_key: Uint8Array;
  allocated: number;
  version: string;
}

export const COLUMNS = `l.list_id, l.series_id, l.generation, l.type, l.status_purpose, l.bits, l.length, l.issuer, l.key_alias,
  l.proof_format, l.correlation_id, l.ttl_seconds, l.validity_seconds, l.permutation_key, l.allocated,
  l.version::text AS version`;

export const toList = (r: ListRow): StoredList => ({
  listId: r.list_id,
  seriesId: r.series_id,
  generation: Number(r.generation),
  type: r.type,
  statusPurpose: r.status_purpose,
  bits: Number(r.bits) as StatusBits,
  length: Number(r.length),
  issuer: r.issuer,
  keyAlias: r.key_alias,
  proofFormat: r.proof_format,
  correlationId: r.correlation_id,
  ttlSeconds: Number(r.ttl_seconds),
  validitySeconds: Number(r.validity_seconds),
  permutationKey: new Uint8Array(r.permutation_key),
  allocated: Number(r.allocated),
  version: String(r.version),
});

export type NewList = Omit<StoredList, 'allocated' | 'version'>;

/** False when the id is taken in the tenant. */
export async function insertList(sql: Sql, list: NewList, now: Date): Promise<boolean> {
  const result = await sql.query(
    `INSERT INTO status_lists (list_id, series_id, generation, type, status_purpose, bits, length, issuer, key_alias,
       proof_format, correlation_id, ttl_seconds, validity_seconds, permutation_key, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15)
     ON CONFLICT DO NOTHING RETURNING list_id`,
    [
      list.listId,
      list.seriesId,
      list.generation,
      list.type,
      list.statusPurpose,
      list.bits,
      list.length,
      list.issuer,
      list.keyAlias,
      list.proofFormat,
      list.correlationId,
      list.ttlSeconds,
      list.validitySeconds,
      Buffer.from(list.permutationKey),
      now,
    ],
  );
  return result.rows.length === 1;
}

/**
 * The next list of a series, same configuration, its own permutation key. Replicas that find the series full at
 * the same moment race here: the unique (series, generation) lets one insert win and the others do nothing.
 */
export async function insertRollover(
  sql: Sql,
  full: { seriesId: string; generation: number },
  next: { listId: string; permutationKey: Uint8Array },
  now: Date,
): Promise<void> {
  await sql.query(
    `INSERT INTO status_lists (list_id, series_id, generation, type, status_purpose, bits, length, issuer, key_alias,
       proof_format, correlation_id, ttl_seconds, validity_seconds, permutation_key, created_at, updated_at)
     SELECT $3, series_id, generation + 1, type, status_purpose, bits, length, issuer, key_alias, proof_format,
            correlation_id, ttl_seconds, validity_seconds, $4, $5, $5
       FROM status_lists WHERE series_id = $1 AND generation = $2
     ON CONFLICT DO NOTHING`,
    [full.seriesId, full.generation, next.listId, Buffer.from(next.permutationKey), now],
  );
}

export type AllocationResult =
  /** Counters first .. first+count-1 of `list` are this caller's (count may be less than asked when it filled up). */
  | { kind: 'reserved'; list: StoredList; first: number; count: number }
  | { kind: 'full'; list: StoredList }
  /** The newest list was made after the statement's snapshot (a roll-over elsewhere): try again. */
  | { kind: 'retry' }
  | { kind: 'missing' };

/**
 * Reserves up to `wanted` allocations in the newest list of the series that `listId` belongs to, in one statement:
 * the row is locked (FOR UPDATE reads its latest committed counter) and the counter moves past the reserved range,
 * so concurrent callers on every connection and replica get disjoint ranges, and never past the list's length.
 *
 * `audit` holds the audit event of each wanted allocation, in order (or null: nothing to stage for it). The same
 * statement stages the events of the allocations it reserved, the first `count` of them (issue 13 §7: a counter
 * never moves without its events, and an allocation the statement did not make stages nothing).
 */
export async function reserveCounters(
  sql: Sql,
  listId: string,
  wanted: number,
  audit: readonly (PendingAuditEvent | null)[] = [],
): Promise<AllocationResult> {
  const updated = await sql.query<ListRow & { first: number }>(
    `WITH open AS (
       SELECT o.list_id, o.allocated AS first FROM status_lists o
        WHERE o.series_id = (SELECT s.series_id FROM status_lists s WHERE s.list_id = $1)
        ORDER BY o.generation DESC LIMIT 1
          FOR UPDATE),
     reserved AS (
       UPDATE status_lists l SET allocated = LEAST(l.length, open.first + $2)
         FROM open WHERE l.list_id = open.list_id AND open.first < l.length
       RETURNING ${COLUMNS}, open.first),
     audit AS (
       SELECT NULLIF(e.value, 'null'::jsonb) AS audit_event
         FROM reserved r, jsonb_array_elements($3::text::jsonb) WITH ORDINALITY AS e(value, n)
        WHERE e.n <= r.allocated - r.first),
     staged AS (${stageAuditEventsFrom('audit')})
     SELECT * FROM reserved`,
    [listId, wanted, JSON.stringify(audit)],
  );
  const row = updated.rows[0];
  if (row) {
    const list = toList(row);
    const first = Number(row.first);
    return { kind: 'reserved', list, first, count: list.allocated - first };
  }
  const open = await sql.query<ListRow>(
    `SELECT ${COLUMNS} FROM status_lists l
      WHERE l.series_id = (SELECT s.series_id FROM status_lists s WHERE s.list_id = $1)
      ORDER BY l.generation DESC LIMIT 1`,
    [listId],
  );
  const newest = open.rows[0] ? toList(open.rows[0]) : null;
  if (!newest) return { kind: 'missing' };
  return newest.allocated >= newest.length ? { kind: 'full', list: newest } : { kind: 'retry' };
}

export async function getList(sql: Sql, listId: string): Promise<StoredList | null> {
  const rows = await sql.query<ListRow>(`SELECT ${COLUMNS} FROM status_lists l WHERE l.list_id = $1`, [listId]);
  return rows.rows[0] ? toList(rows.rows[0]) : null;
}

/** The byte that holds the status of `index` (0 when its chunk was never written). */
export async function getStatusByte(sql: Sql, list: StoredList, bytePosition: number): Promise<number> {
  const rows = await sql.query<{ byte: number }>(
    `SELECT get_byte(bytes, $3) AS byte FROM status_list_chunks WHERE list_id = $1 AND chunk_no = $2`,
    [list.listId, Math.floor(bytePosition / CHUNK_BYTES), bytePosition % CHUNK_BYTES],
  );
  return Number(rows.rows[0]?.byte ?? 0);
}

/** Every written chunk of the list, in order. */
export async function listChunks(sql: Sql, listId: string): Promise<{ chunkNo: number; bytes: Uint8Array }[]> {
  const rows = await sql.query<{ chunk_no: number; bytes: Uint8Array }>(
    `SELECT chunk_no, bytes FROM status_list_chunks WHERE list_id = $1 ORDER BY chunk_no`,
    [listId],
  );
  return rows.rows.map((r) => ({ chunkNo: Number(r.chunk_no), bytes: r.bytes }));
}

/** The key aliases the tenant's lists are signed with. */
export async function listKeyAliases(sql: Sql): Promise<string[]> {
  const rows = await sql.query<{ key_alias: string }>(`SELECT DISTINCT key_alias FROM status_lists ORDER BY key_alias`);
  return rows.rows.map((r) => r.key_alias);
}
