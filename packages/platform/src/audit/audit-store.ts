import type { Database } from '../db/database.js';
import { AppError } from '../errors/app-error.js';
import type { KeyManager } from '../keys/key-manager.js';
import type { Clock } from '../observability/clock.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { AppendOptions, AuditEventInput, AuditLog, AuditOutcome } from './audit-log.js';
import type { AuditStaging, PendingAuditEvent } from './audit-pending.js';
import type { AuditRedaction } from './redaction.js';
import { AuditAppender } from './audit-appender.js';
import { AuditCheckpoints, type AuditCheckpoint, type AuditSigningOptions } from './audit-checkpoints.js';
import { prepareAuditEvent, prepareStagedOutcome } from './audit-prepare.js';
import { queryAuditEvents, type AuditPage, type AuditQuery } from './audit-query.js';
import { recoverPendingAuditEvents } from './audit-recovery.js';
import { verifyAuditChain, type AuditVerifyResult } from './audit-verify.js';

export { AUDIT_SIGNING_ALGORITHM, auditKeyAlias } from './audit-checkpoints.js';
export type { AuditCheckpoint, AuditSigningOptions } from './audit-checkpoints.js';
export type { AuditPage, AuditQuery } from './audit-query.js';
export type { AuditBreakReason, AuditVerifyResult } from './audit-verify.js';
export { AUDIT_EVENT_COLUMNS, auditEventFromRow, type AuditEventRow } from './audit-rows.js';

/**
 * The audit store (001 §6, 000 §6): append-only, hash-chained per tenant, with signed checkpoints per tenant when
 * `audit.events.signing.enabled`. Append-only is enforced by grants: the runtime role has no UPDATE or DELETE on
 * audit_events and audit_checkpoints (migrations/0001).
 *
 * One object over its parts: preparing an event (audit-prepare.ts), appending by group commit (audit-appender.ts,
 * on the chaining statements of audit-chain.ts), signed checkpoints (audit-checkpoints.ts), the recovery of staged
 * events (audit-recovery.ts), the administrators' read (audit-query.ts) and the verification (audit-verify.ts).
 */
export interface AuditStoreOptions {
  db: Database;
  keys: KeyManager;
  metrics: Metrics;
  clock: Clock;
  logger: Logger;
  signing: AuditSigningOptions;
  /** Events per transaction at most (default 1000). */
  maxBatchEvents?: number;
  /** Events read per round trip by verify (default 1000). */
  verifyBatchEvents?: number;
  /** Field-level redaction per command (redaction.ts), applied as each event is prepared, before it is hashed. */
  redaction?: AuditRedaction | undefined;
}

export class AuditStore implements AuditLog, AuditStaging {
  private readonly checkpoints: AuditCheckpoints;
  private readonly appender: AuditAppender;
  private readonly verifyBatch: number;
  private closed = false;

  constructor(private readonly options: AuditStoreOptions) {
    this.verifyBatch = options.verifyBatchEvents ?? 1000;
    if (options.signing.enabled && !(options.signing.checkpointEveryEvents >= 1)) {
      throw new Error('audit.events.signing.checkpointEveryEvents must be at least 1');
    }
    this.checkpoints = new AuditCheckpoints(options);
    this.appender = new AuditAppender({
      db: options.db,
      metrics: options.metrics,
      logger: options.logger,
      checkpoints: this.checkpoints,
      maxBatch: options.maxBatchEvents ?? 1000,
    });
  }

  /** Resolves once the event is committed; rejects when its batch's transaction fails. */
  append(input: AuditEventInput, options: AppendOptions = {}): Promise<void> {
    if (this.closed) return Promise.reject(new AppError('service_unavailable', 'The audit store is closed.'));
    let event: PendingAuditEvent;
    try {
      event = this.prepare(input);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.appender.enqueue(event, options.staged === true);
  }

  /**
   * Chains the final version of an event that `prepare` made and a unit of work staged (AuditStaging): the staged
   * event with its command's outcome (prepareStagedOutcome). Resolves once it is chained, as `append` does.
   */
  appendStagedOutcome(staged: PendingAuditEvent, outcome: AuditOutcome): Promise<void> {
    if (this.closed) return Promise.reject(new AppError('service_unavailable', 'The audit store is closed.'));
    let event: PendingAuditEvent;
    try {
      event = prepareStagedOutcome(staged, outcome, this.options);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.appender.enqueue(event, true);
  }

  /** Writes what is queued and waits for every flush in flight; later appends are refused. */
  async close(): Promise<void> {
    this.closed = true;
    await this.whenIdle();
  }

  /** Waits until every queued event, and the checkpoints they make due, are written. */
  whenIdle(): Promise<void> {
    return this.appender.whenIdle();
  }

  /**
   * Waits until the events this process had queued when called (for the tenant, or all) are chained or their
   * batch failed (AuditAppender.settled): what a read of the audit waits for, since commands answer once their
   * event is staged and it is chained after.
   */
  settled(tenantId?: string): Promise<void> {
    return this.appender.settled(tenantId);
  }

  /** Events of the tenant queued in this process and not yet chained (or failed). */
  backlog(tenantId: string): number {
    return this.appender.backlog(tenantId);
  }

  /** Signs the current head of a tenant's chain now (also when automatic checkpoints are off); null for an empty chain. */
  checkpoint(tenantId: string): Promise<AuditCheckpoint | null> {
    return this.checkpoints.checkpoint(tenantId);
  }

  /** The event as it is chained (or staged, audit-pending.ts): validated, storable, with its id and time. */
  prepare(input: AuditEventInput): PendingAuditEvent {
    return prepareAuditEvent(input, this.options);
  }

  /**
   * Chains the staged events older than `olderThanSeconds` (audit-recovery.ts); answers how many were chained. The
   * head this process knew of a tenant so extended is behind now: its next flush reads it under the lock.
   */
  recoverPending(olderThanSeconds: number): Promise<number> {
    return recoverPendingAuditEvents({ ...this.options, checkpoints: this.checkpoints }, olderThanSeconds, (tenantId) =>
      this.appender.forgetHead(tenantId),
    );
  }

  /** Events ordered by (occurred_at, tenant_id, seq), one keyset page at a time (platform administrators). */
  async query(filter: AuditQuery): Promise<AuditPage> {
    await this.settled(filter.tenantId);
    return queryAuditEvents(this.options.db, filter);
  }

  /** Recomputes a tenant's chain and checks its head and checkpoints (audit-verify.ts). */
  async verify(tenantId: string): Promise<AuditVerifyResult> {
    await this.settled(tenantId);
    return verifyAuditChain({ db: this.options.db, keys: this.options.keys, batchEvents: this.verifyBatch }, tenantId);
  }
}
