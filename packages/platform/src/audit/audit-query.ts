import { TENANT_ID_PATTERN, type Database, type Sql } from '../db/database.js';
import { AppError } from '../errors/app-error.js';
import type { AuditEvent, AuditResult } from './audit-log.js';
import { AUDIT_EVENT_COLUMNS, auditEventFromRow, type AuditEventRow } from './audit-rows.js';

export interface AuditQuery {
  tenantId?: string | undefined;
  principalId?: string | undefined;
  commandId?: string | undefined;
  type?: string | undefined;
  result?: AuditResult | undefined;
  /** Inclusive. */
  from?: Date | undefined;
  /** Exclusive. */
  to?: Date | undefined;
  /** Default 50, at most 500. */
  limit?: number | undefined;
  cursor?: string | undefined;
}

export interface AuditPage {
  events: AuditEvent[];
  nextCursor: string | null;
}

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

/** Events ordered by (occurred_at, tenant_id, seq), one keyset page at a time (platform administrators' read). */
export async function queryAuditEvents(db: Database, filter: AuditQuery): Promise<AuditPage> {
  const limit = Math.min(Math.max(Math.trunc(filter.limit ?? DEFAULT_LIMIT), 1), MAX_LIMIT);
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (clause: (p: string) => string, value: unknown) => {
    params.push(value);
    where.push(clause(`$${params.length}`));
  };
  if (filter.tenantId !== undefined && !TENANT_ID_PATTERN.test(filter.tenantId)) {
    throw new AppError('invalid_request', 'The tenant filter is not a tenant id.', { field: 'tenant' });
  }
  if (filter.principalId !== undefined) add((p) => `principal_id = ${p}`, filter.principalId);
  if (filter.commandId !== undefined) add((p) => `command_id = ${p}`, filter.commandId);
  if (filter.type !== undefined) add((p) => `event_type = ${p}`, filter.type);
  if (filter.result !== undefined) add((p) => `result = ${p}`, filter.result);
  if (filter.from !== undefined) add((p) => `occurred_at >= ${p}::timestamptz`, filter.from.toISOString());
  if (filter.to !== undefined) add((p) => `occurred_at < ${p}::timestamptz`, filter.to.toISOString());
  if (filter.cursor !== undefined) {
    const after = decodeCursor(filter.cursor);
    params.push(after.occurredAt, after.tenantId, after.seq);
    const n = params.length;
    where.push(`(occurred_at, tenant_id, seq) > ($${n - 2}::timestamptz, $${n - 1}::text, $${n}::bigint)`);
  }
  params.push(limit + 1);
  const text = `SELECT ${AUDIT_EVENT_COLUMNS} FROM audit_events ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
                ORDER BY occurred_at, tenant_id, seq LIMIT $${params.length}`;
  const run = (sql: Sql) => sql.query<AuditEventRow>(text, params);
  // Row-level security scopes a tenant-filtered read; the platform scope sees every tenant.
  const res = filter.tenantId !== undefined ? await db.withTenant(filter.tenantId, run) : await db.withPlatform(run);
  const events = res.rows.slice(0, limit).map(auditEventFromRow);
  const last = events[events.length - 1];
  return { events, nextCursor: res.rows.length > limit && last ? encodeCursor(last) : null };
}

// --- Cursors: opaque to clients, the keyset position of the last event of a page --------------------------------

function encodeCursor(event: AuditEvent): string {
  return Buffer.from(JSON.stringify([event.occurredAt, event.tenantId, event.seq]), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): { occurredAt: string; tenantId: string; seq: number } {
  const invalid = () => new AppError('invalid_request', 'The cursor is invalid.', { field: 'cursor' });
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(value) || value.length !== 3) throw invalid();
  const [occurredAt, tenantId, seq] = value as unknown[];
  if (typeof occurredAt !== 'string' || Number.isNaN(Date.parse(occurredAt))) throw invalid();
  if (typeof tenantId !== 'string' || !TENANT_ID_PATTERN.test(tenantId)) throw invalid();
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1) throw invalid();
  return { occurredAt, tenantId, seq };
}
