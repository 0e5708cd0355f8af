import type { Sql } from '../db/database.js';
import type { AuditEvent } from './audit-log.js';
import { GENESIS_HASH, canonicalEvent, linkHash, type HashedEventFields } from './canonical.js';

/**
 * The batch's events, from its one JSON parameter ($1): an array of the events' canonical texts (the text each
 * hash covers, canonical.ts) with their links added (ChainedBatch.rows), read by the events' own field names.
 */
const INSERT_EVENTS_FROM_JSON = `
  INSERT INTO audit_events (seq, event_id, occurred_at, event_type, command_id, principal_id, result, correlation_id,
                            trace_id, business_ids, details, prev_hash, hash)
  SELECT e.seq, e."eventId", e."occurredAt", e.type, e."commandId", e."principalId", e.result, e."correlationId",
         e."traceId", COALESCE(e."businessIds", '{}'), COALESCE(e.details, '{}'), e."prevHash", e.hash
    FROM jsonb_to_recordset($1::text::jsonb) AS e(seq bigint, "eventId" uuid, "occurredAt" timestamptz, type text,
         "commandId" text, "principalId" text, result text, "correlationId" text, "traceId" text,
         "businessIds" jsonb, details jsonb, "prevHash" text, hash text)`;

/**
 * One statement writes the batch and moves the head. The batch travels as one JSON parameter: the statement text
 * and its parameter count stay the same whatever the batch size.
 */
export const INSERT_BATCH = `
WITH appended AS (
${INSERT_EVENTS_FROM_JSON}
  RETURNING 1
)
UPDATE audit_heads SET seq = $2, hash = $3`;

/**
 * The same in one round trip, without a lock, from the head this process wrote last: the head moves only if it is
 * still where this process left it, and the events are inserted only if it moved. When another replica appended
 * in between, the conditional update finds no row (under READ COMMITTED it waits for that replica's commit and
 * then re-checks the condition), nothing is written, and the batch goes the locking way.
 */
export const APPEND_AFTER_KNOWN_HEAD = `
WITH moved AS (
  UPDATE audit_heads SET seq = $2, hash = $3 WHERE seq = $4 AND hash = $5 RETURNING 1
), appended AS (
${INSERT_EVENTS_FROM_JSON}
   WHERE EXISTS (SELECT 1 FROM moved)
  RETURNING 1
)
SELECT (SELECT count(*) FROM moved)::int AS moved, (SELECT count(*) FROM appended)::int AS appended`;

/**
 * The same for a batch holding staged events ($6: their ids, $7: how many): the head moves only while every staged
 * row is still there, and they are deleted with the append. A staged row that is gone (chained by the recovery)
 * leaves the head unmoved, and the batch goes the locking way, which appends only the events it could claim.
 */
export const APPEND_STAGED_AFTER_KNOWN_HEAD = `
WITH moved AS (
  UPDATE audit_heads SET seq = $2, hash = $3
   WHERE seq = $4 AND hash = $5
     AND (SELECT count(*) FROM audit_pending WHERE event_id = ANY ($6::uuid[])) = $7
  RETURNING 1
), appended AS (
${INSERT_EVENTS_FROM_JSON}
   WHERE EXISTS (SELECT 1 FROM moved)
  RETURNING 1
), unstaged AS (
  DELETE FROM audit_pending WHERE event_id = ANY ($6::uuid[]) AND EXISTS (SELECT 1 FROM moved) RETURNING 1
)
SELECT (SELECT count(*) FROM moved)::int AS moved, (SELECT count(*) FROM appended)::int AS appended`;

/** A batch chained onto a head: its events, and the JSON parameter of the append statements that writes them. */
export interface ChainedBatch {
  events: AuditEvent[];
  /** `[row, …]`: each event's canonical text with `prevHash` and `hash` added (INSERT_EVENTS_FROM_JSON). */
  rows: string;
}

/**
 * The events chained onto a head: sequence numbers and hashes. Each event's canonical text is written once and
 * serves twice: its hash covers it, and with the links added it is the event's row in the statement's parameter
 * (the events are not serialized a second time for the database). Each event is written out field by field rather
 * than spread (`{ ...event, seq }`): a spread of these twelve fields cost ~1.5 µs per object, more than the event's
 * SHA-256; the fields are the event's whole type (PendingAuditEvent), so nothing is dropped.
 */
export function chain(head: { seq: number; hash: string }, events: Omit<HashedEventFields, 'seq'>[]): ChainedBatch {
  let seq = head.seq;
  let prevHash = head.hash;
  const chained = new Array<AuditEvent>(events.length);
  let rows = '[';
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    seq += 1;
    const event: AuditEvent = {
      tenantId: e.tenantId,
      seq,
      eventId: e.eventId,
      occurredAt: e.occurredAt,
      type: e.type,
      commandId: e.commandId,
      principalId: e.principalId,
      result: e.result,
      correlationId: e.correlationId,
      traceId: e.traceId,
      businessIds: e.businessIds,
      details: e.details,
      prevHash,
      hash: '',
    };
    // eventHash(prevHash, event), with the canonical text kept for the row.
    const text = canonicalEvent(event);
    event.hash = linkHash(prevHash, text);
    // Both links are hex: they need no escaping. The text is an object: its closing brace makes way for them.
    rows += `${i > 0 ? ',' : ''}${text.slice(0, -1)},"prevHash":"${prevHash}","hash":"${event.hash}"}`;
    prevHash = event.hash;
    chained[i] = event;
  }
  return { events: chained, rows: `${rows}]` };
}

/** Locks the tenant's chain head (created at genesis on the first append). */
export async function lockHead(sql: Sql): Promise<{ seq: number; hash: string }> {
  const select = 'SELECT seq, hash FROM audit_heads FOR UPDATE';
  let row = (await sql.query<{ seq: number | string; hash: string }>(select)).rows[0];
  if (!row) {
    // Two replicas may create it at once: the loser's insert waits for the winner and does nothing.
    await sql.query('INSERT INTO audit_heads (seq, hash) VALUES (0, $1) ON CONFLICT (tenant_id) DO NOTHING', [
      GENESIS_HASH,
    ]);
    row = (await sql.query<{ seq: number | string; hash: string }>(select)).rows[0];
    if (!row) throw new Error('the audit chain head could not be created');
  }
  return { seq: Number(row.seq), hash: row.hash };
}
