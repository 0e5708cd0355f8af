/**
 * The audit port (001 §6, 000 §6). Every command execution, authorization decision, authentication event and
 * administrative mutation appends an event. Events are hash-chained per tenant in an append-only store.
 */
export type AuditResult = 'success' | 'failure' | 'denied';

export interface AuditEventInput {
  tenantId: string;
  /** e.g. command.executed, authorization.denied, authentication.succeeded, idv_initiated, gdpr_erasure. */
  type: string;
  commandId?: string | undefined;
  principalId?: string | null | undefined;
  result: AuditResult;
  correlationId?: string | undefined;
  traceId?: string | undefined;
  /** Identifiers of the business objects concerned (ids, never personal data). */
  businessIds?: Record<string, string> | undefined;
  /** Further non-personal detail (reason codes, client ids, counts). */
  details?: Record<string, unknown> | undefined;
  occurredAt?: Date | undefined;
  /** The event's id; given when the event was staged first (audit-pending.ts), otherwise a new one. */
  eventId?: string | undefined;
}

/** What a command knows of its event only once it has answered: what the final version of a staged event changes. */
export type AuditOutcome = Pick<AuditEventInput, 'result' | 'businessIds' | 'details'>;

export interface AppendOptions {
  /**
   * The event (by its `eventId`) was staged in a unit of work that committed (audit-pending.ts): this version
   * replaces the staged one on the chain, in the statement that removes the staged row. When the staged row is
   * gone (recovered already), nothing more is appended.
   */
  staged?: boolean;
}

export interface AuditEvent {
  tenantId: string;
  seq: number;
  eventId: string;
  occurredAt: string;
  type: string;
  commandId: string | null;
  principalId: string | null;
  result: AuditResult;
  correlationId: string | null;
  traceId: string | null;
  businessIds: Record<string, string>;
  details: Record<string, unknown>;
  prevHash: string;
  hash: string;
}

export interface AuditLog {
  /** Resolves once the event is durable (the caller may then acknowledge its request). */
  append(event: AuditEventInput, options?: AppendOptions): Promise<void>;
  /** Events of the tenant this process has queued and not yet written (or failed), if the log queues them. */
  backlog?(tenantId: string): number;
}
