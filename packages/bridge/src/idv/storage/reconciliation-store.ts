import type { Sql } from '@tessera/platform';
import type { IdvFailureReason } from '../domain/failure-reasons.js';
import type { ReconciliationChange, ReconciliationStatus } from '../domain/reconciliation-state.js';

/**
 * IDV reconciliations (000 §2.4). SQL only; every method runs in the caller's unit of work (tenancy by
 * `db.withTenant` and row-level security), except the `locate` lookup of the callback (platform scope). Moves are
 * conditional updates, so that of two requests racing on one attempt exactly one moves it.
 */
export interface Reconciliation {
  id: string;
  sessionId: string;
  providerId: string;
  status: ReconciliationStatus;
  errorReason: IdvFailureReason | null;
  errorMessage: string | null;
  correlationId: string;
  stateId: string;
  nonce: string | null;
  pkceSealed: string | null;
  outcomeSealed: string | null;
  identityId: string | null;
  history: ReconciliationChange[];
  createdAt: Date;
  expiresAt: Date;
  stateSpentAt: Date | null;
  completedAt: Date | null;
}

interface Row {
  id: string;
  session_id: string;
  provider_id: string;
  status: ReconciliationStatus;
  error_reason: IdvFailureReason | null;
  error_message: string | null;
  correlation_id: string;
  state_id: string;
  nonce: string | null;
  pkce_sealed: string | null;
  outcome_sealed: string | null;
  identity_id: string | null;
  history: ReconciliationChange[];
  created_at: Date | string;
  expires_at: Date | string;
  state_spent_at: Date | string | null;
  completed_at: Date | string | null;
}

const maybeDate = (v: Date | string | null) => (v === null ? null : new Date(v));

const fromRow = (r: Row): Reconciliation => ({
  id: r.id,
  sessionId: r.session_id,
  providerId: r.provider_id,
  status: r.status,
  errorReason: r.error_reason,
  errorMessage: r.error_message,
  correlationId: r.correlation_id,
  stateId: r.state_id,
  nonce: r.nonce,
  pkceSealed: r.pkce_sealed,
  outcomeSealed: r.outcome_sealed,
  identityId: r.identity_id,
  history: r.history,
  createdAt: new Date(r.created_at),
  expiresAt: new Date(r.expires_at),
  stateSpentAt: maybeDate(r.state_spent_at),
  completedAt: maybeDate(r.completed_at),
});

/** Columns a move may set besides the status. */
const UPDATABLE = {
  errorReason: 'error_reason',
  errorMessage: 'error_message',
  nonce: 'nonce',
  pkceSealed: 'pkce_sealed',
  outcomeSealed: 'outcome_sealed',
  identityId: 'identity_id',
  completedAt: 'completed_at',
} as const satisfies Partial<Record<keyof Reconciliation, string>>;

export type ReconciliationChanges = Partial<Pick<Reconciliation, keyof typeof UPDATABLE>>;

export type NewReconciliation = Pick<
  Reconciliation,
  'id' | 'sessionId' | 'providerId' | 'correlationId' | 'stateId' | 'createdAt' | 'expiresAt'
>;

export const reconciliationStore = {
  /** Inserts an attempt in CREATED; a unique violation means the session already has an open attempt. */
  async insert(sql: Sql, r: NewReconciliation): Promise<Reconciliation> {
    const row = (
      await sql.query<Row>(
        `INSERT INTO bridge_idv_reconciliations (id, session_id, provider_id, status, correlation_id, state_id, history,
           created_at, expires_at)
         VALUES ($1, $2, $3, 'CREATED', $4, $5, $6::jsonb, $7, $8) RETURNING *`,
        [
          r.id,
          r.sessionId,
          r.providerId,
          r.correlationId,
          r.stateId,
          JSON.stringify([{ status: 'CREATED', at: r.createdAt.toISOString() }]),
          r.createdAt,
          r.expiresAt,
        ],
      )
    ).rows[0]!;
    return fromRow(row);
  },

  async get(sql: Sql, id: string): Promise<Reconciliation | null> {
    const r = (await sql.query<Row>('SELECT * FROM bridge_idv_reconciliations WHERE id = $1', [id])).rows[0];
    return r ? fromRow(r) : null;
  },

  /** The session's latest attempt (what GET .../idv/status and submit speak about). */
  async latestForSession(sql: Sql, sessionId: string): Promise<Reconciliation | null> {
    const r = (
      await sql.query<Row>('SELECT * FROM bridge_idv_reconciliations WHERE session_id = $1 ORDER BY seq DESC LIMIT 1', [
        sessionId,
      ])
    ).rows[0];
    return r ? fromRow(r) : null;
  },

  /** The session's open attempts. */
  async openForSession(sql: Sql, sessionId: string, open: readonly ReconciliationStatus[]): Promise<Reconciliation[]> {
    return (
      await sql.query<Row>(
        'SELECT * FROM bridge_idv_reconciliations WHERE session_id = $1 AND status = ANY($2::text[]) FOR UPDATE',
        [sessionId, [...open]],
      )
    ).rows.map(fromRow);
  },

  /**
   * Moves the attempt from one of `from` to `to` at `at`, appending the move to its history, with further changes.
   * Null when the attempt was not in one of `from`.
   */
  async transition(
    sql: Sql,
    id: string,
    from: readonly ReconciliationStatus[],
    to: ReconciliationStatus,
    at: Date,
    changes: ReconciliationChanges = {},
  ): Promise<Reconciliation | null> {
    const params: unknown[] = [id, [...from], to, JSON.stringify([{ status: to, at: at.toISOString() }])];
    const sets = ['status = $3', 'history = history || $4::jsonb'];
    for (const [field, value] of Object.entries(changes)) {
      params.push(value);
      sets.push(`${UPDATABLE[field as keyof typeof UPDATABLE]} = $${params.length}`);
    }
    const r = (
      await sql.query<Row>(
        `UPDATE bridge_idv_reconciliations SET ${sets.join(', ')} WHERE id = $1 AND status = ANY($2::text[]) RETURNING *`,
        params,
      )
    ).rows[0];
    return r ? fromRow(r) : null;
  },

  /**
   * Spends the state (000 §2.4 "single-use"): REDIRECTED → CALLBACK_RECEIVED only for this state id, not spent yet
   * and not expired at `at`, in one conditional update. Null when any of these does not hold.
   */
  async spendState(sql: Sql, id: string, stateId: string, at: Date): Promise<Reconciliation | null> {
    const r = (
      await sql.query<Row>(
        `UPDATE bridge_idv_reconciliations
            SET status = 'CALLBACK_RECEIVED', state_spent_at = $3,
                history = history || jsonb_build_array(jsonb_build_object('status', 'CALLBACK_RECEIVED', 'at', $4::text))
          WHERE id = $1 AND state_id = $2 AND status = 'REDIRECTED' AND state_spent_at IS NULL AND expires_at > $3
          RETURNING *`,
        [id, stateId, at, at.toISOString()],
      )
    ).rows[0];
    return r ? fromRow(r) : null;
  },

  /** Keeps the verified login on a CALLBACK_RECEIVED attempt until it is recorded (sealed). */
  async keepOutcome(sql: Sql, id: string, outcomeSealed: string): Promise<boolean> {
    return (
      (
        await sql.query(
          `UPDATE bridge_idv_reconciliations SET outcome_sealed = $2 WHERE id = $1 AND status = 'CALLBACK_RECEIVED'`,
          [id, outcomeSealed],
        )
      ).rowCount === 1
    );
  },

  /** Platform scope: the tenant and session of the attempt a state names. */
  async locate(sql: Sql, id: string): Promise<{ tenantId: string; sessionId: string; stateId: string } | null> {
    const r = (
      await sql.query<{ tenant_id: string; session_id: string; state_id: string }>(
        'SELECT tenant_id, session_id, state_id FROM bridge_idv_reconciliations WHERE id = $1',
        [id],
      )
    ).rows[0];
    return r ? { tenantId: r.tenant_id, sessionId: r.session_id, stateId: r.state_id } : null;
  },
};
