import type { Sql } from '@tessera/platform';
import type { InvocationBinding } from '../domain/pipeline.js';

export type InvocationStatus = 'invoking' | 'contributed' | 'accepted' | 'failed';

export interface InvocationRow {
  id: string;
  connectorId: string;
  phase: string;
  mode: InvocationBinding['mode'];
  status: InvocationStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastErrorKind: string | null;
  lastLatencyMs: number | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface InvocationDelivery {
  attempts: number;
  lastStatusCode: number | null;
  lastErrorKind: string | null;
  lastLatencyMs: number | null;
}

interface Row {
  id: string;
  connector_id: string;
  phase: string;
  mode: InvocationBinding['mode'];
  status: InvocationStatus;
  attempts: number;
  last_status_code: number | null;
  last_error_kind: string | null;
  last_latency_ms: number | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const toDate = (v: Date | string) => (v instanceof Date ? v : new Date(v));

/** SQL of the connector invocations (delivery status, 001 §4.5); runs in the caller's tenant unit of work. */
export const invocationStore = {
  /**
   * Claims the bindings not yet invoked for the session: one row each, `invoking`. Answers the ids of those this
   * call claimed (a binding another replica claimed first is left to it). A claim still `invoking` since before
   * `staleBefore` belonged to a replica that stopped mid-invocation: it is taken over (new id, attempts reset).
   */
  async claim(
    sql: Sql,
    sessionId: string,
    bindings: readonly InvocationBinding[],
    ids: readonly string[],
    now: Date,
    staleBefore: Date,
  ): Promise<Map<string, string>> {
    if (bindings.length === 0) return new Map();
    const result = await sql.query<{ id: string; connector_id: string; phase: string }>(
      `INSERT INTO issuance_connector_invocations
         (id, session_id, connector_id, phase, mode, status, created_at, updated_at)
       SELECT i.id, $1, i.connector_id, i.phase, i.mode, 'invoking', $3, $3
         FROM jsonb_to_recordset($2::jsonb) AS i(id uuid, connector_id text, phase text, mode text)
       ON CONFLICT (tenant_id, session_id, connector_id, phase) DO UPDATE
         SET id = EXCLUDED.id, attempts = 0, last_status_code = NULL, last_error_kind = NULL, last_latency_ms = NULL,
             updated_at = EXCLUDED.updated_at
         WHERE issuance_connector_invocations.status = 'invoking' AND issuance_connector_invocations.updated_at < $4
       RETURNING id, connector_id, phase`,
      [
        sessionId,
        JSON.stringify(
          bindings.map((b, i) => ({ id: ids[i], connector_id: b.connectorId, phase: b.phase, mode: b.mode })),
        ),
        now,
        staleBefore,
      ],
    );
    return new Map(result.rows.map((r) => [`${r.connector_id}\u0000${r.phase}`, r.id]));
  },

  async finish(sql: Sql, id: string, status: InvocationStatus, delivery: InvocationDelivery, now: Date) {
    await sql.query(
      `UPDATE issuance_connector_invocations
          SET status = $2, attempts = $3, last_status_code = $4, last_error_kind = $5, last_latency_ms = $6,
              updated_at = $7
        WHERE id = $1`,
      [id, status, delivery.attempts, delivery.lastStatusCode, delivery.lastErrorKind, delivery.lastLatencyMs, now],
    );
  },

  /** An accepted (202) invocation whose callback has now contributed. */
  async callbackArrived(sql: Sql, correlationId: string, connectorId: string, now: Date): Promise<void> {
    await sql.query(
      `UPDATE issuance_connector_invocations SET status = 'contributed', updated_at = $3
        WHERE connector_id = $2 AND status = 'accepted'
          AND session_id = (SELECT id FROM issuance_sessions WHERE correlation_id = $1)`,
      [correlationId, connectorId, now],
    );
  },

  async list(sql: Sql, sessionId: string): Promise<InvocationRow[]> {
    const result = await sql.query<Row>(
      `SELECT id, connector_id, phase, mode, status, attempts, last_status_code, last_error_kind, last_latency_ms,
              created_at, updated_at
         FROM issuance_connector_invocations WHERE session_id = $1 ORDER BY created_at, connector_id`,
      [sessionId],
    );
    return result.rows.map((r) => ({
      id: r.id,
      connectorId: r.connector_id,
      phase: r.phase,
      mode: r.mode,
      status: r.status,
      attempts: r.attempts,
      lastStatusCode: r.last_status_code,
      lastErrorKind: r.last_error_kind,
      lastLatencyMs: r.last_latency_ms,
      createdAt: toDate(r.created_at),
      updatedAt: toDate(r.updated_at),
    }));
  },
};
