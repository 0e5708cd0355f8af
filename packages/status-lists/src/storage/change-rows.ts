import { stageAuditEventsFrom, type PendingAuditEvent, type Sql } from '@tessera/platform';
import { COLUMNS, toList, type ListRow, type StoredList } from './list-rows.js';

/**
 * SQL of a batch of status changes (entries/entry-updater.ts): one statement reads the list and the chunks the
 * changes fall in, one writes the changed chunks, moves the version and stages the events, and only if the list is
 * still at the version that was read. Every writer of chunks moves the version in the same transaction (this
 * statement, the locking path, earlier releases' lock-then-write), so an unchanged version means unchanged chunks.
 */
export interface ListForChanges {
  list: StoredList;
  /** The chunks read, by number (absent ones were never written: zeros). */
  chunks: Map<number, Uint8Array>;
}

/**
 * The list and, in the same snapshot, its chunks that hold `indexes` (the chunk of index i is i*bits/8 bytes in,
 * 1 KiB per chunk: status-bits.ts, CHUNK_BYTES). `lock`: the row is also locked for the rest of the transaction.
 */
export async function readForChanges(
  sql: Sql,
  listId: string,
  indexes: readonly number[],
  lock: boolean,
): Promise<ListForChanges | null> {
  const rows = await sql.query<ListRow & { chunks: [number, string][] | null }>(
    `SELECT ${COLUMNS},
            (SELECT json_agg(json_build_array(c.chunk_no, encode(c.bytes, 'hex')))
               FROM status_list_chunks c
              WHERE c.tenant_id = l.tenant_id AND c.list_id = l.list_id
                AND c.chunk_no = ANY (ARRAY(SELECT (i::bigint * l.bits / 8192)::int FROM unnest($2::int[]) AS i)))
              AS chunks
       FROM status_lists l WHERE l.list_id = $1${lock ? ' FOR UPDATE OF l' : ''}`,
    [listId, indexes],
  );
  const row = rows.rows[0];
  if (!row) return null;
  const chunks = new Map<number, Uint8Array>();
  for (const [chunkNo, hex] of row.chunks ?? []) chunks.set(Number(chunkNo), new Uint8Array(Buffer.from(hex, 'hex')));
  return { list: toList(row), chunks };
}

/**
 * Writes whole chunks, moves the version once when any chunk changed (so the next read signs again) and stages the
 * events of the changes (issue 13 §7), in one statement and only if the list is still at `version`: the row is
 * locked first (a concurrent writer is waited for, then the version is checked on its committed row). False when
 * the version moved: nothing was written and the caller reads again.
 */
export async function writeChanges(
  sql: Sql,
  listId: string,
  version: string,
  chunks: ReadonlyMap<number, Uint8Array>,
  now: Date,
  audit: readonly PendingAuditEvent[],
): Promise<boolean> {
  const numbers = [...chunks.keys()];
  const hex = numbers.map((n) => Buffer.from(chunks.get(n)!).toString('hex'));
  const result = await sql.query<{ applied: number }>(
    `WITH current AS (
       SELECT l.list_id FROM status_lists l WHERE l.list_id = $1 AND l.version = $2::bigint FOR UPDATE),
     bumped AS (
       UPDATE status_lists l SET version = l.version + 1, updated_at = $5
         FROM current WHERE l.list_id = current.list_id AND cardinality($3::int[]) > 0
       RETURNING 1),
     written AS (
       INSERT INTO status_list_chunks (list_id, chunk_no, bytes)
       SELECT $1, n, decode(h, 'hex') FROM unnest($3::int[], $4::text[]) AS c(n, h)
        WHERE EXISTS (SELECT 1 FROM current)
       ON CONFLICT (tenant_id, list_id, chunk_no) DO UPDATE SET bytes = EXCLUDED.bytes
       RETURNING 1),
     staged AS (${stageAuditEventsFrom(
       `(SELECT e.value AS audit_event FROM jsonb_array_elements($6::text::jsonb) AS e(value)
          WHERE EXISTS (SELECT 1 FROM current))`,
     )})
     SELECT count(*)::int AS applied FROM current`,
    [listId, version, numbers, hex, now, JSON.stringify(audit)],
  );
  return Number(result.rows[0]?.applied ?? 0) === 1;
}
