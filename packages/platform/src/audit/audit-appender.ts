import type { Database } from '../db/database.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { AuditEvent } from './audit-log.js';
import type { PendingAuditEvent } from './audit-pending.js';
import type { AuditCheckpoints } from './audit-checkpoints.js';
import {
  APPEND_AFTER_KNOWN_HEAD,
  APPEND_STAGED_AFTER_KNOWN_HEAD,
  INSERT_BATCH,
  chain,
  lockHead,
} from './audit-chain.js';

interface Waiter {
  event: PendingAuditEvent;
  /** Replaces a staged event of the same id (AppendOptions.staged). */
  staged: boolean;
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface TenantQueue {
  waiting: Waiter[];
  flush: Promise<void> | null;
  /** The chain head as this process last wrote it (null: unknown, read it under a lock). */
  head: { seq: number; hash: string } | null;
  /** Events enqueued, and events whose batch has ended (written or failed), since the queue was made. */
  enqueued: number;
  ended: number;
  /** Readers waiting until `ended` reaches `target` (settled()). */
  barriers: { target: number; resolve: () => void }[];
}

/**
 * Appends by group commit. Each tenant has a queue and at most one flush in flight; a flush writes everything queued
 * for its tenant at once, so sequence numbers never fork, even across replicas: in one statement chained onto the
 * head this process wrote last, moved only if it is still there, else in a transaction that locks the head. Events
 * arriving during a flush wait for the next one, so batches grow with the load and a busy token service pays one
 * round trip per batch rather than a transaction per token.
 *
 * A staged event (audit-pending.ts: written in the unit of work of the change it records) is chained by the same
 * flush, which deletes its staged row in the statement that appends it, and only while that row is still there:
 * an event that the recovery of staged events chained already is not appended twice.
 */
export class AuditAppender {
  private readonly queues = new Map<string, TenantQueue>();

  constructor(
    private readonly options: {
      db: Database;
      metrics: Metrics;
      logger: Logger;
      checkpoints: AuditCheckpoints;
      /** Events per transaction at most. */
      maxBatch: number;
    },
  ) {}

  /** Resolves once the event is committed; rejects when its batch's transaction fails. */
  enqueue(event: PendingAuditEvent, staged: boolean): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let queue = this.queues.get(event.tenantId);
      if (!queue)
        this.queues.set(
          event.tenantId,
          (queue = { waiting: [], flush: null, head: null, enqueued: 0, ended: 0, barriers: [] }),
        );
      queue.waiting.push({ event, staged, resolve, reject });
      queue.enqueued++;
      if (!queue.flush) queue.flush = this.drain(event.tenantId, queue);
    });
  }

  /** Waits until every queued event, and the checkpoints they make due, are written. */
  async whenIdle(): Promise<void> {
    for (;;) {
      const running = [...this.queues.values()].map((q) => q.flush).filter((f): f is Promise<void> => f !== null);
      if (running.length === 0) return;
      await Promise.all(running);
    }
  }

  /**
   * Resolves once every event this process had enqueued when it was called, for the tenant or for all, has had its
   * batch written or failed; events enqueued later are not waited for, so a reader is not held up by a steady load.
   * What a read of the audit waits for first: the command bus answers once an event is staged and chains it after.
   */
  settled(tenantId?: string): Promise<void> {
    const queues = tenantId === undefined ? [...this.queues.values()] : [this.queues.get(tenantId)];
    const pending = queues
      .filter((q): q is TenantQueue => q !== undefined && q.ended < q.enqueued)
      .map((q) => new Promise<void>((resolve) => q.barriers.push({ target: q.enqueued, resolve })));
    return pending.length === 0 ? Promise.resolve() : Promise.all(pending).then(() => undefined);
  }

  /** Events of the tenant enqueued whose batch has not ended yet. */
  backlog(tenantId: string): number {
    const queue = this.queues.get(tenantId);
    return queue ? queue.enqueued - queue.ended : 0;
  }

  /** The head this process knew is behind (another writer chained onto it): the next flush reads it under the lock. */
  forgetHead(tenantId: string): void {
    const queue = this.queues.get(tenantId);
    if (queue) queue.head = null;
  }

  private async drain(tenantId: string, queue: TenantQueue): Promise<void> {
    // Yield once so that the events appended in the same tick as the first one travel in its transaction.
    await Promise.resolve();
    try {
      while (queue.waiting.length > 0)
        await this.flushOnce(tenantId, queue, queue.waiting.splice(0, this.options.maxBatch));
    } finally {
      // Cleared in the same tick as the loop found the queue empty, so an append after this starts a new flush.
      queue.flush = null;
    }
  }

  /** One transaction for the batch; every waiter learns its outcome. */
  private async flushOnce(tenantId: string, queue: TenantQueue, batch: Waiter[]): Promise<void> {
    let written: AuditEvent[];
    try {
      const events = batch.map((w) => w.event);
      const stagedIds = batch.filter((w) => w.staged).map((w) => w.event.eventId);
      // One statement after the head this process wrote last; the locking transaction when that head is unknown
      // or another replica has moved it.
      const appended = queue.head ? await this.appendAfterKnownHead(tenantId, queue.head, events, stagedIds) : null;
      written = appended ?? (await this.writeBatch(tenantId, events, stagedIds));
      const last = written[written.length - 1];
      if (last) queue.head = { seq: last.seq, hash: last.hash };
    } catch (error) {
      queue.head = null;
      this.options.metrics.auditAppends.inc({ result: 'failure' }, batch.length);
      this.options.logger.error({ err: error, tenant_id: tenantId, events: batch.length }, 'audit append failed');
      for (const w of batch) w.reject(error);
      ended(queue, batch.length);
      return;
    }
    this.options.metrics.auditAppends.inc({ result: 'success' }, batch.length);
    for (const w of batch) w.resolve();
    ended(queue, batch.length);
    await this.options.checkpoints.writeDue(tenantId, written);
  }

  /**
   * The locking way: one transaction that reads the head FOR UPDATE, then writes the batch and moves the head.
   * Staged events are claimed (their staged rows deleted) under that lock; one whose row is gone was chained by the
   * recovery already and is left out.
   */
  private writeBatch(tenantId: string, all: PendingAuditEvent[], stagedIds: string[]): Promise<AuditEvent[]> {
    return this.options.db.withTenant(tenantId, async (sql) => {
      const head = await lockHead(sql);
      let events = all;
      if (stagedIds.length > 0) {
        const claimed = await sql.query<{ event_id: string }>(
          'DELETE FROM audit_pending WHERE event_id = ANY ($1::uuid[]) RETURNING event_id',
          [stagedIds],
        );
        const kept = new Set(claimed.rows.map((r) => r.event_id));
        const staged = new Set(stagedIds);
        events = all.filter((e) => !staged.has(e.eventId) || kept.has(e.eventId));
        if (events.length === 0) return [];
      }
      const chained = chain(head, events);
      const last = chained.events[chained.events.length - 1]!;
      const moved = await sql.query(INSERT_BATCH, [chained.rows, last.seq, last.hash]);
      if (moved.rowCount !== 1) throw new Error('the audit chain head vanished during an append');
      return chained.events;
    });
  }

  /** The batch chained onto the head this process wrote last, in one statement; null when the head has moved. */
  private async appendAfterKnownHead(
    tenantId: string,
    head: { seq: number; hash: string },
    events: PendingAuditEvent[],
    stagedIds: string[],
  ): Promise<AuditEvent[] | null> {
    const chained = chain(head, events);
    const last = chained.events[chained.events.length - 1]!;
    const params = [chained.rows, last.seq, last.hash, head.seq, head.hash];
    const result = await this.options.db.withTenantSession(tenantId, (sql) =>
      stagedIds.length === 0
        ? sql.query<{ moved: number; appended: number }>(APPEND_AFTER_KNOWN_HEAD, params, {
            prepareAs: 'audit.append-after-known-head',
          })
        : sql.query<{ moved: number; appended: number }>(
            APPEND_STAGED_AFTER_KNOWN_HEAD,
            [...params, stagedIds, stagedIds.length],
            { prepareAs: 'audit.append-staged-after-known-head' },
          ),
    );
    const row = result.rows[0];
    if (!row || row.moved !== 1) return null;
    if (row.appended !== chained.events.length) throw new Error('the audit batch was not written whole');
    return chained.events;
  }
}

/** A batch of `count` events has ended: the readers waiting for it may go on. */
function ended(queue: TenantQueue, count: number): void {
  queue.ended += count;
  if (queue.barriers.length === 0) return;
  const waiting = queue.barriers;
  queue.barriers = [];
  for (const barrier of waiting) {
    if (barrier.target <= queue.ended) barrier.resolve();
    else queue.barriers.push(barrier);
  }
}
