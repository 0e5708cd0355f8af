import type { AuditEvent, AuditResult } from './audit-log.js';

/** A row of `audit_events` as read with AUDIT_EVENT_COLUMNS (the audit store's and the event forwarding's reads). */
export interface AuditEventRow {
  tenant_id: string;
  seq: number | string;
  event_id: string;
  occurred_at: Date | string;
  event_type: string;
  command_id: string | null;
  principal_id: string | null;
  result: AuditResult;
  correlation_id: string | null;
  trace_id: string | null;
  business_ids: Record<string, string>;
  details: Record<string, unknown>;
  prev_hash: string;
  hash: string;
}

/** A row of `audit_checkpoints`. */
export interface CheckpointRow {
  seq: number | string;
  hash: string;
  signature: string;
  kid: string;
}

export const AUDIT_EVENT_COLUMNS =
  'tenant_id, seq, event_id, occurred_at, event_type, command_id, principal_id, result, correlation_id, trace_id, business_ids, details, prev_hash, hash';

export function auditEventFromRow(row: AuditEventRow): AuditEvent {
  return {
    tenantId: row.tenant_id,
    seq: Number(row.seq),
    eventId: row.event_id,
    occurredAt: new Date(row.occurred_at).toISOString(),
    type: row.event_type,
    commandId: row.command_id,
    principalId: row.principal_id,
    result: row.result,
    correlationId: row.correlation_id,
    traceId: row.trace_id,
    businessIds: row.business_ids ?? {},
    details: row.details ?? {},
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}
