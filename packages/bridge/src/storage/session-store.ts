import { stageAuditEventsFrom, type PendingAuditEvent, type Sql } from '@tessera/platform';
import type { PresentationSession, RejectedResponse } from '../domain/session.js';
import type { SessionStatus } from '../domain/session-state.js';

/**
 * Presentation sessions (000 §2.1). SQL only; every method runs in the caller's unit of work, so tenancy is applied
 * by `db.withTenant` and row-level security. State moves are conditional updates (`WHERE status = ANY(...)`), which
 * makes each move atomic across replicas: of two instances racing on one session, exactly one wins.
 */
interface SessionRow {
  id: string;
  status: SessionStatus;
  query_id: string;
  oauth_session_id: string | null;
  bound_client_id: string | null;
  bound_code_challenge: string | null;
  force_reconciliation: boolean;
  correlation_id: string;
  request_id: string;
  verifier_client_id: string;
  response_mode: PresentationSession['responseMode'];
  nonce: string;
  state: string;
  request_object: string;
  response_key_sealed: string | null;
  history: PresentationSession['history'];
  checks: PresentationSession['checks'];
  failure: PresentationSession['failure'];
  rejected_responses: PresentationSession['rejectedResponses'];
  holder_key: string | null;
  plan_type: PresentationSession['planType'];
  plan_identity_id: string | null;
  idv_required: boolean;
  idv_reason: string | null;
  presented_sealed: string | null;
  result_sealed: string | null;
  match_candidates_sealed: string | null;
  created_at: Date | string;
  expires_at: Date | string;
  verified_at: Date | string | null;
  completed_at: Date | string | null;
  redeemed_at: Date | string | null;
}

const date = (v: Date | string) => new Date(v);
const maybeDate = (v: Date | string | null) => (v === null ? null : new Date(v));

function fromRow(r: SessionRow): PresentationSession {
  return {
    id: r.id,
    status: r.status,
    queryId: r.query_id,
    oauthSessionId: r.oauth_session_id,
    boundClientId: r.bound_client_id,
    boundCodeChallenge: r.bound_code_challenge,
    forceReconciliation: r.force_reconciliation,
    correlationId: r.correlation_id,
    requestId: r.request_id,
    verifierClientId: r.verifier_client_id,
    responseMode: r.response_mode,
    nonce: r.nonce,
    state: r.state,
    requestObject: r.request_object,
    responseKeySealed: r.response_key_sealed,
    history: r.history,
    checks: r.checks,
    failure: r.failure,
    rejectedResponses: r.rejected_responses,
    holderKey: r.holder_key,
    planType: r.plan_type,
    planIdentityId: r.plan_identity_id,
    idvRequired: r.idv_required,
    idvReason: r.idv_reason,
    presentedSealed: r.presented_sealed,
    resultSealed: r.result_sealed,
    matchCandidatesSealed: r.match_candidates_sealed,
    createdAt: date(r.created_at),
    expiresAt: date(r.expires_at),
    verifiedAt: maybeDate(r.verified_at),
    completedAt: maybeDate(r.completed_at),
    redeemedAt: maybeDate(r.redeemed_at),
  };
}

/** Columns a state move may set besides the status, mapped from the session's field names. */
const UPDATABLE = {
  checks: ['checks', 'jsonb'],
  failure: ['failure', 'jsonb'],
  holderKey: ['holder_key', ''],
  planType: ['plan_type', ''],
  planIdentityId: ['plan_identity_id', ''],
  idvRequired: ['idv_required', ''],
  idvReason: ['idv_reason', ''],
  presentedSealed: ['presented_sealed', ''],
  resultSealed: ['result_sealed', ''],
  matchCandidatesSealed: ['match_candidates_sealed', ''],
  responseKeySealed: ['response_key_sealed', ''],
  verifiedAt: ['verified_at', ''],
  completedAt: ['completed_at', ''],
} as const satisfies Partial<Record<keyof PresentationSession, readonly [string, string]>>;

export type SessionChanges = Partial<Pick<PresentationSession, keyof typeof UPDATABLE>>;

export interface SessionLocation {
  tenantId: string;
  sessionId: string;
}

export const sessionStore = {
  /**
   * Inserts a new session and stages `auditEvent` (the creating command's, audit-pending.ts) in the same statement:
   * one statement is atomic by itself, so the session and its event commit together without a transaction of their
   * own (issue 13 §7; session creation is on the hot path).
   */
  async insert(sql: Sql, s: PresentationSession, auditEvent: PendingAuditEvent | null = null): Promise<void> {
    await sql.query(
      `WITH inserted AS (
         INSERT INTO bridge_sessions (id, status, query_id, oauth_session_id, bound_client_id, bound_code_challenge,
           force_reconciliation, correlation_id, request_id, verifier_client_id, response_mode, nonce, state,
           request_object, response_key_sealed, history, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16::jsonb, $17, $18)
         RETURNING $19::text::jsonb AS audit_event),
       staged AS (${stageAuditEventsFrom('inserted')})
       SELECT 1`,
      [
        s.id,
        s.status,
        s.queryId,
        s.oauthSessionId,
        s.boundClientId,
        s.boundCodeChallenge,
        s.forceReconciliation,
        s.correlationId,
        s.requestId,
        s.verifierClientId,
        s.responseMode,
        s.nonce,
        s.state,
        s.requestObject,
        s.responseKeySealed,
        JSON.stringify(s.history),
        s.createdAt,
        s.expiresAt,
        auditEvent ? JSON.stringify(auditEvent) : null,
      ],
      { prepareAs: 'bridge.insert-session' },
    );
  },

  async get(sql: Sql, id: string): Promise<PresentationSession | null> {
    const r = (await sql.query<SessionRow>('SELECT * FROM bridge_sessions WHERE id = $1', [id])).rows[0];
    return r ? fromRow(r) : null;
  },

  async getByRequestId(sql: Sql, requestId: string): Promise<PresentationSession | null> {
    const r = (await sql.query<SessionRow>('SELECT * FROM bridge_sessions WHERE request_id = $1', [requestId])).rows[0];
    return r ? fromRow(r) : null;
  },

  /**
   * Moves the session from one of `from` to `to` at `at`, appending the move to its history, with further changes.
   * Answers the updated session, or null when the session was not in one of `from` (another request moved it).
   */
  async transition(
    sql: Sql,
    id: string,
    from: readonly SessionStatus[],
    to: SessionStatus,
    at: Date,
    changes: SessionChanges = {},
  ): Promise<PresentationSession | null> {
    const params: unknown[] = [id, [...from], to, JSON.stringify([{ status: to, at: at.toISOString() }])];
    const sets = ['status = $3', 'history = history || $4::jsonb'];
    for (const [field, value] of Object.entries(changes)) {
      const [column, cast] = UPDATABLE[field as keyof typeof UPDATABLE];
      params.push(cast === 'jsonb' ? JSON.stringify(value) : value);
      sets.push(`${column} = $${params.length}${cast ? `::${cast}` : ''}`);
    }
    const r = (
      await sql.query<SessionRow>(
        `UPDATE bridge_sessions SET ${sets.join(', ')} WHERE id = $1 AND status = ANY($2::text[]) RETURNING *`,
        params,
      )
    ).rows[0];
    return r ? fromRow(r) : null;
  },

  /**
   * Records a response that failed verification on a VERIFYING session, in one conditional update: back to
   * INTERACTION_STARTED while fewer than `maxFailed` responses were refused (this one included), else ERROR with the
   * failure (domain rule `afterRejectedResponse`, written here in SQL so that two replicas cannot both reopen past the
   * bound). Answers the updated session, or null when the session was not VERIFYING.
   */
  async reject(
    sql: Sql,
    id: string,
    rejection: RejectedResponse,
    checks: PresentationSession['checks'],
    maxFailed: number,
    at: Date,
  ): Promise<PresentationSession | null> {
    const failure = JSON.stringify({ check: rejection.check, reason: rejection.reason });
    const r = (
      await sql.query<SessionRow>(
        `UPDATE bridge_sessions
            SET status = CASE WHEN jsonb_array_length(rejected_responses) + 1 >= $3 THEN 'ERROR' ELSE 'INTERACTION_STARTED' END,
                failure = CASE WHEN jsonb_array_length(rejected_responses) + 1 >= $3 THEN $4::jsonb ELSE failure END,
                history = history || jsonb_build_array(jsonb_build_object(
                  'status', CASE WHEN jsonb_array_length(rejected_responses) + 1 >= $3 THEN 'ERROR' ELSE 'INTERACTION_STARTED' END,
                  'at', $5::text)),
                rejected_responses = rejected_responses || jsonb_build_array($2::jsonb),
                checks = $6::jsonb
          WHERE id = $1 AND status = 'VERIFYING'
          RETURNING *`,
        [id, JSON.stringify(rejection), maxFailed, failure, at.toISOString(), JSON.stringify(checks)],
      )
    ).rows[0];
    return r ? fromRow(r) : null;
  },

  /** Marks a completed session redeemed if it is bound to this pair, unredeemed and completed at or after `completedSince`. */
  async redeem(
    sql: Sql,
    id: string,
    clientId: string,
    codeChallenge: string,
    completedSince: Date,
    at: Date,
  ): Promise<PresentationSession | null> {
    const r = (
      await sql.query<SessionRow>(
        `UPDATE bridge_sessions SET redeemed_at = $5
          WHERE id = $1 AND status = 'COMPLETED' AND redeemed_at IS NULL AND bound_client_id = $2 AND bound_code_challenge = $3
            AND completed_at >= $4
          RETURNING *`,
        [id, clientId, codeChallenge, completedSince, at],
      )
    ).rows[0];
    return r ? fromRow(r) : null;
  },

  /** Platform scope: the tenant of the session a wallet reaches by its request id. */
  async locateByRequestId(sql: Sql, requestId: string): Promise<SessionLocation | null> {
    const r = (
      await sql.query<{ tenant_id: string; id: string }>(
        'SELECT tenant_id, id FROM bridge_sessions WHERE request_id = $1',
        [requestId],
      )
    ).rows[0];
    return r ? { tenantId: r.tenant_id, sessionId: r.id } : null;
  },

  /** Platform scope: the tenant of a session reached by its id (the QR page, which carries no tenant). */
  async locateById(sql: Sql, id: string): Promise<SessionLocation | null> {
    const r = (
      await sql.query<{ tenant_id: string; id: string }>('SELECT tenant_id, id FROM bridge_sessions WHERE id = $1', [
        id,
      ])
    ).rows[0];
    return r ? { tenantId: r.tenant_id, sessionId: r.id } : null;
  },

  /** Platform scope: moves every timed-out session to EXPIRED (000 §3.1); answers what it moved, for audit. */
  async expireDue(
    sql: Sql,
    now: Date,
    expirable: readonly SessionStatus[],
  ): Promise<{ tenantId: string; id: string; correlationId: string; from: SessionStatus }[]> {
    const rows = (
      await sql.query<{ tenant_id: string; id: string; correlation_id: string; previous: SessionStatus }>(
        `UPDATE bridge_sessions s SET status = 'EXPIRED', history = s.history || jsonb_build_array(jsonb_build_object('status', 'EXPIRED', 'at', $2::text))
           FROM (SELECT tenant_id, id, status AS previous FROM bridge_sessions WHERE status = ANY($3::text[]) AND expires_at <= $1 FOR UPDATE) p
          WHERE s.tenant_id = p.tenant_id AND s.id = p.id
          RETURNING s.tenant_id, s.id, s.correlation_id, p.previous`,
        [now, now.toISOString(), [...expirable]],
      )
    ).rows;
    return rows.map((r) => ({ tenantId: r.tenant_id, id: r.id, correlationId: r.correlation_id, from: r.previous }));
  },

  /** Platform scope: the tenants that have sessions due to expire (expireDue then runs in each tenant's unit). */
  async tenantsWithDue(sql: Sql, now: Date, expirable: readonly SessionStatus[]): Promise<string[]> {
    const rows = (
      await sql.query<{ tenant_id: string }>(
        'SELECT DISTINCT tenant_id FROM bridge_sessions WHERE status = ANY($2::text[]) AND expires_at <= $1',
        [now, [...expirable]],
      )
    ).rows;
    return rows.map((r) => r.tenant_id);
  },

  /** Platform scope: deletes sessions that expired before `before`. */
  async deleteExpiredBefore(sql: Sql, before: Date): Promise<number> {
    return (await sql.query('DELETE FROM bridge_sessions WHERE expires_at < $1', [before])).rowCount;
  },
};
