import { stageAuditEventsFrom, type PendingAuditEvent, type Sql } from '@tessera/platform';
import type { PipelineConfiguration } from '../domain/pipeline.js';
import type { SessionState } from '../domain/session-machine.js';
import type { EncryptionMode } from '../domain/encryption-mode.js';
import {
  ATTRIBUTE_COLUMNS,
  ATTRIBUTE_RECORD,
  ATTRIBUTE_VALUES,
  attributeRecordset,
  connectorFieldRecordset,
  FIELD_COLUMNS,
  FIELD_CONFLICT,
  FIELD_RECORD,
  FIELD_VALUES,
  type StoredAttribute,
  type StoredConnectorField,
} from './bag-store.js';

/** SQL of the sessions; runs in the caller's tenant unit of work (row-level security). */
export interface SessionRow {
  id: string;
  correlationId: string;
  pipeline: PipelineConfiguration;
  encryptionMode: EncryptionMode;
  state: SessionState;
  failureReason: string | null;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date;
  /**
   * The required attribute paths the bag holds, sorted (0004_session_required_paths.sql); null when not known yet.
   * Kept with the row, so that a contribution decides completeness from the row it locks.
   */
  presentRequiredPaths: string[] | null;
}

interface Row {
  id: string;
  correlation_id: string;
  pipeline: PipelineConfiguration | string;
  encryption_mode: EncryptionMode;
  state: SessionState | string;
  failure_reason: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  expires_at: Date | string;
  present_required_paths: string[] | string | null;
}

const toDate = (v: Date | string) => (v instanceof Date ? v : new Date(v));
const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);
const toRow = (r: Row): SessionRow => ({
  id: r.id,
  correlationId: r.correlation_id,
  pipeline: json(r.pipeline),
  encryptionMode: r.encryption_mode,
  state: json(r.state),
  failureReason: r.failure_reason,
  createdAt: toDate(r.created_at),
  updatedAt: toDate(r.updated_at),
  expiresAt: toDate(r.expires_at),
  presentRequiredPaths: textArray(r.present_required_paths),
});

/** A text[] as the driver gives it: an array (node-postgres, PGlite), or its text form from a driver that does not parse it. */
function textArray(v: string[] | string | null): string[] | null {
  if (v === null || Array.isArray(v)) return v;
  const inner = v.slice(1, -1);
  return inner === '' ? [] : inner.split(',').map((p) => (p.startsWith('"') ? (JSON.parse(p) as string) : p));
}

const COLUMNS = `id, correlation_id, pipeline, encryption_mode, state, failure_reason, created_at, updated_at, expires_at,
  present_required_paths`;

export const sessionStore = {
  /** Inserts; answers false when the correlation id is taken in the tenant (001 §4.2: 409 on reuse). */
  async insert(sql: Sql, row: SessionRow): Promise<boolean> {
    const result = await sql.query(
      `INSERT INTO issuance_sessions
         (id, correlation_id, pipeline_id, pipeline, encryption_mode, status, state, created_at, updated_at, expires_at,
          present_required_paths)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7::jsonb, $8, $8, $9, $10::text[])
       ON CONFLICT DO NOTHING RETURNING id`,
      [
        row.id,
        row.correlationId,
        row.pipeline.pipelineId,
        JSON.stringify(row.pipeline),
        row.encryptionMode,
        row.state.status,
        JSON.stringify(row.state),
        row.createdAt,
        row.expiresAt,
        row.presentRequiredPaths,
      ],
    );
    return result.rows.length === 1;
  },

  /**
   * The live (unexpired) session; `lock`: FOR UPDATE, so that state moves of one session queue behind each other
   * across processes while its attribute rows are written concurrently.
   */
  async getLive(sql: Sql, correlationId: string, now: Date, lock = false): Promise<SessionRow | null> {
    const result = await sql.query<Row>(
      `SELECT ${COLUMNS} FROM issuance_sessions WHERE correlation_id = $1 AND expires_at > $2${lock ? ' FOR UPDATE' : ''}`,
      [correlationId, now],
    );
    return result.rows[0] ? toRow(result.rows[0]) : null;
  },

  async saveState(sql: Sql, id: string, state: SessionState, now: Date, failureReason?: string): Promise<void> {
    await sql.query(
      `UPDATE issuance_sessions SET state = $2::jsonb, status = $3, updated_at = $4,
              failure_reason = COALESCE($5, failure_reason)
        WHERE id = $1`,
      [id, JSON.stringify(state), state.status, now, failureReason ?? null],
    );
  },

  /** A contribution's move: the state and the required paths present, with the lock of lockForContribution. */
  async saveContribution(
    sql: Sql,
    id: string,
    state: SessionState,
    presentRequiredPaths: readonly string[],
    now: Date,
  ): Promise<void> {
    await sql.query(
      `UPDATE issuance_sessions SET state = $2::jsonb, status = $3, present_required_paths = $4::text[], updated_at = $5
        WHERE id = $1`,
      [id, JSON.stringify(state), state.status, [...presentRequiredPaths], now],
    );
  },

  /**
   * A contribution's first statement: the live session locked and the sealed rows written (when they were sealed for
   * the session's mode: `written`). The caller reads what completeness needs in a statement of its own, after the
   * lock (a statement that waited for the lock still reads with the snapshot it began with, which misses what the
   * unit that held the lock wrote), then moves the state through the machine; a refusal rolls the unit back, rows
   * included. `audit`: the command's event, staged by the same statement when the session is there (issue 13 §7:
   * it commits or rolls back with the unit, at no extra round trip while the session row is locked).
   */
  async lockForContribution(
    sql: Sql,
    correlationId: string,
    now: Date,
    sealed: { mode: EncryptionMode; attributes: readonly StoredAttribute[]; fields: readonly StoredConnectorField[] },
    audit: PendingAuditEvent | null = null,
  ): Promise<{ session: SessionRow; written: boolean } | null> {
    const result = await sql.query<Row>(
      `WITH s AS (
         SELECT ${COLUMNS} FROM issuance_sessions WHERE correlation_id = $1 AND expires_at > $2 FOR UPDATE
       ), attributes AS (
         INSERT INTO issuance_session_attributes (${ATTRIBUTE_COLUMNS})
         SELECT s.id, ${ATTRIBUTE_VALUES} FROM s, jsonb_to_recordset($4::jsonb) AS ${ATTRIBUTE_RECORD}
          WHERE s.encryption_mode = $3
       ), fields AS (
         INSERT INTO issuance_session_connector_fields (${FIELD_COLUMNS})
         SELECT s.id, ${FIELD_VALUES} FROM s, jsonb_to_recordset($5::jsonb) AS ${FIELD_RECORD}
          WHERE s.encryption_mode = $3
         ${FIELD_CONFLICT}
       ), staged AS (${stageAuditEventsFrom('(SELECT $6::text::jsonb AS audit_event FROM s)')})
       SELECT * FROM s`,
      [
        correlationId,
        now,
        sealed.mode,
        attributeRecordset(sealed.attributes),
        connectorFieldRecordset(sealed.fields),
        audit === null ? null : JSON.stringify(audit),
      ],
    );
    const row = result.rows[0];
    if (!row) return null;
    return { session: toRow(row), written: row.encryption_mode === sealed.mode };
  },

  /**
   * A whole contribution in one statement, for a unit of work that is this statement alone (issue 18): the live
   * session locked, and only when its encryption mode, state and required paths present are still `expected` (what
   * the caller decided from), the sealed rows written, the session moved to `next` (when `next.changed`) and the
   * audit event staged. Answers the locked row and whether it applied; when it did not, nothing was written and the
   * row is what the caller decides from next. The check runs under the lock on the row's latest version (a locking
   * read that waited returns the version the holder committed), so a decision taken from a stale copy is never
   * written: every contribution that changes what completeness or the machine decide from changes this row.
   */
  async contributeIfCurrent(
    sql: Sql,
    correlationId: string,
    now: Date,
    expected: { state: SessionState; presentRequiredPaths: readonly string[] },
    next: { changed: boolean; state: SessionState; presentRequiredPaths: readonly string[] },
    sealed: { mode: EncryptionMode; attributes: readonly StoredAttribute[]; fields: readonly StoredConnectorField[] },
    audit: PendingAuditEvent | null,
  ): Promise<{ session: SessionRow; applied: boolean } | null> {
    const result = await sql.query<Row & { applied: boolean }>(
      `WITH s AS (
         SELECT ${COLUMNS} FROM issuance_sessions WHERE correlation_id = $1 AND expires_at > $2 FOR UPDATE
       ), ok AS (
         SELECT s.id FROM s
          WHERE s.encryption_mode = $3 AND s.state = $7::jsonb AND s.present_required_paths = $8::text[]
       ), moved AS (
         UPDATE issuance_sessions t
            SET state = $10::jsonb, status = $11, present_required_paths = $12::text[], updated_at = $2
           FROM ok WHERE $9::boolean AND t.id = ok.id
       ), attributes AS (
         INSERT INTO issuance_session_attributes (${ATTRIBUTE_COLUMNS})
         SELECT ok.id, ${ATTRIBUTE_VALUES} FROM ok, jsonb_to_recordset($4::jsonb) AS ${ATTRIBUTE_RECORD}
       ), fields AS (
         INSERT INTO issuance_session_connector_fields (${FIELD_COLUMNS})
         SELECT ok.id, ${FIELD_VALUES} FROM ok, jsonb_to_recordset($5::jsonb) AS ${FIELD_RECORD}
         ${FIELD_CONFLICT}
       ), staged AS (${stageAuditEventsFrom('(SELECT $6::text::jsonb AS audit_event FROM ok)')})
       SELECT s.*, EXISTS (SELECT 1 FROM ok) AS applied FROM s`,
      [
        correlationId,
        now,
        sealed.mode,
        attributeRecordset(sealed.attributes),
        connectorFieldRecordset(sealed.fields),
        audit === null ? null : JSON.stringify(audit),
        JSON.stringify(expected.state),
        [...expected.presentRequiredPaths],
        next.changed,
        JSON.stringify(next.state),
        next.state.status,
        [...next.presentRequiredPaths],
      ],
      // The statement of nearly every contribution: parsed and planned once per connection.
      { prepareAs: 'issuance_contribute_if_current' },
    );
    const row = result.rows[0];
    if (!row) return null;
    return { session: toRow(row), applied: row.applied === true };
  },
};
