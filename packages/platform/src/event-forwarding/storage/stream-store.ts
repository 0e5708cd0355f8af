import type { Sql } from '../../db/database.js';
import type { AuditEvent } from '../../audit/audit-log.js';
import { AUDIT_EVENT_COLUMNS, auditEventFromRow, type AuditEventRow } from '../../audit/audit-store.js';
import type { CircuitState } from '../../outbound/domain/delivery.js';
import type { EventStream, StreamFormat, StreamStatus } from '../domain/stream.js';

interface StreamRow {
  tenant_id: string;
  id: string;
  destination_id: string;
  url: string;
  format: StreamFormat;
  audience: string[];
  events_requested: string[];
  description: string | null;
  status: StreamStatus;
  status_reason: string | null;
  circuit_state: CircuitState;
  cursor_seq: number | string;
  created_at: Date | string;
  updated_at: Date | string;
}

const COLUMNS = `s.tenant_id, s.id, s.destination_id, d.url, s.format, s.audience, s.events_requested, s.description,
  s.status, s.status_reason, d.circuit_state, s.cursor_seq, s.created_at, s.updated_at`;
const FROM = `event_streams s JOIN webhook_destinations d ON d.tenant_id = s.tenant_id AND d.id = s.destination_id`;

const toStream = (r: StreamRow): EventStream => ({
  tenantId: r.tenant_id,
  id: r.id,
  destinationId: r.destination_id,
  url: r.url,
  format: r.format,
  audience: r.audience,
  eventsRequested: r.events_requested,
  description: r.description,
  status: r.status,
  statusReason: r.status_reason,
  circuitState: r.circuit_state,
  cursorSeq: Number(r.cursor_seq),
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
});

/**
 * Tenant scope, in the unit of work that created its destination. The cursor starts at the tenant's audit chain
 * head: a new stream forwards what happens from now on, not the history (the audit read API exports that).
 */
export async function insertStream(
  sql: Sql,
  s: {
    id: string;
    destinationId: string;
    format: StreamFormat;
    audience: readonly string[];
    eventsRequested: readonly string[];
    description: string | null;
    now: Date;
  },
): Promise<void> {
  await sql.query(
    `INSERT INTO event_streams (id, destination_id, format, audience, events_requested, description, cursor_seq,
                                created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, COALESCE((SELECT seq FROM audit_heads), 0), $7, $7)`,
    [s.id, s.destinationId, s.format, s.audience, s.eventsRequested, s.description, s.now],
  );
}

/** Tenant scope: streams of the given formats (SSF streams, or generic forwarders), oldest first. */
export async function listStreams(sql: Sql, formats: readonly StreamFormat[], id?: string): Promise<EventStream[]> {
  const { rows } = await sql.query<StreamRow>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE s.format = ANY ($1::text[]) AND ($2::uuid IS NULL OR s.id = $2::uuid)
      ORDER BY s.created_at, s.id`,
    [formats, id ?? null],
  );
  return rows.map(toStream);
}

/** Tenant scope: changes what the stream sends; null leaves a field as it is. Answers whether it exists. */
export async function updateStream(
  sql: Sql,
  id: string,
  change: {
    eventsRequested?: readonly string[] | undefined;
    description?: string | null | undefined;
    status?: { status: StreamStatus; reason: string | null } | undefined;
    now: Date;
  },
): Promise<boolean> {
  const { rowCount } = await sql.query(
    `UPDATE event_streams SET
        events_requested = COALESCE($2::text[], events_requested),
        description = CASE WHEN $3::boolean THEN $4 ELSE description END,
        status = COALESCE($5, status),
        status_reason = CASE WHEN $5::text IS NULL THEN status_reason ELSE $6 END,
        updated_at = $7
      WHERE id = $1`,
    [
      id,
      change.eventsRequested ?? null,
      change.description !== undefined,
      change.description ?? null,
      change.status?.status ?? null,
      change.status?.reason ?? null,
      change.now,
    ],
  );
  return rowCount > 0;
}

/** Tenant scope: removes the stream with its destination (and its pending deliveries); answers whether it existed. */
export async function deleteStream(sql: Sql, id: string, formats: readonly StreamFormat[]): Promise<boolean> {
  const { rowCount } = await sql.query(
    `DELETE FROM webhook_destinations d USING event_streams s
      WHERE s.tenant_id = d.tenant_id AND s.destination_id = d.id AND s.id = $1 AND s.format = ANY ($2::text[])`,
    [id, formats],
  );
  return rowCount > 0;
}

// --- The forwarder's reads and writes (platform scope) ----------------------------------------------------------

/**
 * Streams behind their tenant's audit chain head, not paused, whose destination is enabled: the ones a round has
 * work for. In random order: with more such streams than a round takes, none starves, and replicas running rounds
 * at the same time mostly take different streams (less work made and then dropped for a stream another replica took).
 */
export async function streamsBehind(sql: Sql, limit: number): Promise<EventStream[]> {
  const { rows } = await sql.query<StreamRow>(
    `SELECT ${COLUMNS} FROM ${FROM} JOIN audit_heads h ON h.tenant_id = s.tenant_id
      WHERE s.status <> 'paused' AND d.enabled AND h.seq > s.cursor_seq
      ORDER BY random() LIMIT $1`,
    [limit],
  );
  return rows.map(toStream);
}

/**
 * A read-only view of the audit chain: the tenant's events after `afterSeq`, in chain order. The chain's head
 * moves under a lock in the transaction that appends, so once seq n is visible every seq below it is too, and a
 * cursor on seq misses nothing.
 */
export async function auditEventsAfter(
  sql: Sql,
  tenantId: string,
  afterSeq: number,
  limit: number,
): Promise<AuditEvent[]> {
  const { rows } = await sql.query<AuditEventRow>(
    `SELECT ${AUDIT_EVENT_COLUMNS} FROM audit_events WHERE tenant_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
    [tenantId, afterSeq, limit],
  );
  return rows.map(auditEventFromRow);
}

/**
 * Takes the stream for this round when no other replica holds it (SKIP LOCKED) and its cursor is still where this
 * round read it; otherwise another replica forwarded these events already, and the round's work is dropped.
 */
export async function lockStreamAt(sql: Sql, tenantId: string, id: string, cursorSeq: number): Promise<boolean> {
  const { rows } = await sql.query(
    `SELECT 1 FROM event_streams WHERE tenant_id = $1 AND id = $2 AND cursor_seq = $3 FOR UPDATE SKIP LOCKED`,
    [tenantId, id, cursorSeq],
  );
  return rows.length > 0;
}

export async function advanceCursor(sql: Sql, tenantId: string, id: string, toSeq: number): Promise<void> {
  await sql.query(`UPDATE event_streams SET cursor_seq = $3 WHERE tenant_id = $1 AND id = $2`, [tenantId, id, toSeq]);
}

/** Platform scope: every stream's distance behind its tenant's chain head (the lag gauge). */
export async function streamLags(
  sql: Sql,
): Promise<{ tenantId: string; id: string; status: StreamStatus; lag: number }[]> {
  const { rows } = await sql.query<{ tenant_id: string; id: string; status: StreamStatus; lag: number | string }>(
    `SELECT s.tenant_id, s.id, s.status, GREATEST(COALESCE(h.seq, 0) - s.cursor_seq, 0) AS lag
       FROM event_streams s LEFT JOIN audit_heads h ON h.tenant_id = s.tenant_id`,
  );
  return rows.map((r) => ({ tenantId: r.tenant_id, id: r.id, status: r.status, lag: Number(r.lag) }));
}
