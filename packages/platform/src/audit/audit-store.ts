import { randomUUID } from 'node:crypto';
import { compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { TENANT_ID_PATTERN, assertTenantId, type Database, type Sql } from '../db/database.js';
import { AppError } from '../errors/app-error.js';
import type { KeyManager } from '../keys/key-manager.js';
import { signJwt } from '../keys/sign-jwt.js';
import type { Clock } from '../observability/clock.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { AppendOptions, AuditEvent, AuditEventInput, AuditLog, AuditResult } from './audit-log.js';
import type { AuditStaging, PendingAuditEvent } from './audit-pending.js';
import type { AuditRedaction } from './redaction.js';
import { GENESIS_HASH, eventHash, storableString, toStorableJson, type HashedEventFields } from './canonical.js';

/**
 * The audit store (001 §6, 000 §6): append-only, hash-chained per tenant, with signed checkpoints per tenant when
 * `audit.events.signing.enabled`. Append-only is enforced by grants: the runtime role has no UPDATE or DELETE on
 * audit_events and audit_checkpoints (migrations/0001).
 *
 * Appends use group commit. Each tenant has a queue and at most one flush in flight; a flush writes everything
 * queued for its tenant at once, so sequence numbers never fork, even across replicas: in one statement chained
 * onto the head this process wrote last, moved only if it is still there, else in a transaction that locks the
 * head. Events arriving during a flush wait for the next one, so batches grow with the load and a busy token
 * service pays one round trip per batch rather than a transaction per token.
 *
 * A staged event (audit-pending.ts: written in the unit of work of the change it records) is chained by the same
 * flush, which deletes its staged row in the statement that appends it, and only while that row is still there:
 * an event that the recovery of staged events chained already is not appended twice.
 */
export interface AuditSigningOptions {
  enabled: boolean;
  /** A checkpoint is signed each time a tenant's chain reaches a multiple of this. */
  checkpointEveryEvents: number;
}

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

export interface AuditCheckpoint {
  tenantId: string;
  seq: number;
  hash: string;
  kid: string;
  /** Compact JWS (ES256) over {tenant, seq, hash, iat}. */
  signature: string;
}

export type AuditBreakReason =
  | 'hash_mismatch'
  | 'prev_hash_mismatch'
  | 'sequence_gap'
  | 'head_mismatch'
  | 'checkpoint_signature_invalid'
  | 'checkpoint_hash_mismatch';

export type AuditVerifyResult =
  | { ok: true; events: number; checkpoints: number }
  | {
      ok: false;
      /** The first entry that does not hold; eventId is null when that entry is missing (truncated tail). */
      firstBroken: { seq: number; eventId: string | null; reason: AuditBreakReason; expectedSeq?: number };
    };

export const AUDIT_SIGNING_ALGORITHM = 'ES256';
export const auditKeyAlias = (tenantId: string) => `audit:${tenantId}`;
/** JWS `typ` of checkpoints, so that no signature made for another purpose passes as one. */
const CHECKPOINT_TYPE = 'audit-checkpoint+jwt';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;
const RESULTS: readonly AuditResult[] = ['success', 'failure', 'denied'];

interface Waiter {
  event: Omit<HashedEventFields, 'seq'>;
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
}

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

interface CheckpointRow {
  seq: number | string;
  hash: string;
  signature: string;
  kid: string;
}

export const AUDIT_EVENT_COLUMNS =
  'tenant_id, seq, event_id, occurred_at, event_type, command_id, principal_id, result, correlation_id, trace_id, business_ids, details, prev_hash, hash';

/** The batch's events, from its one JSON parameter ($1). */
const INSERT_EVENTS_FROM_JSON = `
  INSERT INTO audit_events (seq, event_id, occurred_at, event_type, command_id, principal_id, result, correlation_id,
                            trace_id, business_ids, details, prev_hash, hash)
  SELECT e.seq, e.event_id, e.occurred_at, e.event_type, e.command_id, e.principal_id, e.result, e.correlation_id,
         e.trace_id, COALESCE(e.business_ids, '{}'), COALESCE(e.details, '{}'), e.prev_hash, e.hash
    FROM jsonb_to_recordset($1::text::jsonb) AS e(seq bigint, event_id uuid, occurred_at timestamptz, event_type text,
         command_id text, principal_id text, result text, correlation_id text, trace_id text, business_ids jsonb,
         details jsonb, prev_hash text, hash text)`;

/**
 * One statement writes the batch and moves the head. The batch travels as one JSON parameter: the statement text
 * and its parameter count stay the same whatever the batch size.
 */
const INSERT_BATCH = `
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
const APPEND_AFTER_KNOWN_HEAD = `
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
const APPEND_STAGED_AFTER_KNOWN_HEAD = `
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

const INSERT_CHECKPOINTS = `
INSERT INTO audit_checkpoints (seq, hash, signature, kid)
SELECT c.seq, c.hash, c.signature, c.kid
  FROM jsonb_to_recordset($1::text::jsonb) AS c(seq bigint, hash text, signature text, kid text)
ON CONFLICT (tenant_id, seq) DO NOTHING`;

export class AuditStore implements AuditLog, AuditStaging {
  private readonly queues = new Map<string, TenantQueue>();
  private readonly keysEnsured = new Map<string, Promise<unknown>>();
  private readonly maxBatch: number;
  private readonly verifyBatch: number;
  private closed = false;

  constructor(private readonly options: AuditStoreOptions) {
    this.maxBatch = options.maxBatchEvents ?? 1000;
    this.verifyBatch = options.verifyBatchEvents ?? 1000;
    if (options.signing.enabled && !(options.signing.checkpointEveryEvents >= 1)) {
      throw new Error('audit.events.signing.checkpointEveryEvents must be at least 1');
    }
  }

  /** Resolves once the event is committed; rejects when its batch's transaction fails. */
  append(input: AuditEventInput, options: AppendOptions = {}): Promise<void> {
    if (this.closed) return Promise.reject(new AppError('service_unavailable', 'The audit store is closed.'));
    let event: Waiter['event'];
    try {
      event = this.prepare(input);
    } catch (error) {
      return Promise.reject(error);
    }
    const staged = options.staged === true;
    return new Promise<void>((resolve, reject) => {
      let queue = this.queues.get(event.tenantId);
      if (!queue) this.queues.set(event.tenantId, (queue = { waiting: [], flush: null, head: null }));
      queue.waiting.push({ event, staged, resolve, reject });
      if (!queue.flush) queue.flush = this.drain(event.tenantId, queue);
    });
  }

  /** Writes what is queued and waits for every flush in flight; later appends are refused. */
  async close(): Promise<void> {
    this.closed = true;
    await this.whenIdle();
  }

  /** Waits until every queued event, and the checkpoints they make due, are written. */
  async whenIdle(): Promise<void> {
    for (;;) {
      const running = [...this.queues.values()].map((q) => q.flush).filter((f): f is Promise<void> => f !== null);
      if (running.length === 0) return;
      await Promise.all(running);
    }
  }

  /** Signs the current head of a tenant's chain now (also when automatic checkpoints are off); null for an empty chain. */
  async checkpoint(tenantId: string): Promise<AuditCheckpoint | null> {
    assertTenantId(tenantId);
    const head = await this.options.db.withTenant(tenantId, (sql) =>
      sql.query<{ seq: number | string; hash: string }>('SELECT seq, hash FROM audit_heads'),
    );
    const row = head.rows[0];
    if (!row || Number(row.seq) === 0) return null;
    const [signed] = await this.signCheckpoints(tenantId, [{ seq: Number(row.seq), hash: row.hash }]);
    const stored = await this.options.db.withTenant(tenantId, async (sql) => {
      await sql.query(INSERT_CHECKPOINTS, [JSON.stringify([signed])]);
      return sql.query<CheckpointRow>('SELECT seq, hash, signature, kid FROM audit_checkpoints WHERE seq = $1', [
        signed!.seq,
      ]);
    });
    const cp = stored.rows[0]!;
    return { tenantId, seq: Number(cp.seq), hash: cp.hash, kid: cp.kid, signature: cp.signature };
  }

  // --- Appending ------------------------------------------------------------------------------------------------

  /** The event as it is chained (or staged, audit-pending.ts): validated, storable, with its id and time. */
  prepare(input: AuditEventInput): PendingAuditEvent {
    assertTenantId(input.tenantId);
    if (typeof input.type !== 'string' || input.type.length === 0) throw new Error('an audit event needs a type');
    if (!RESULTS.includes(input.result)) throw new Error(`invalid audit result ${JSON.stringify(input.result)}`);
    const text = (v: string | null | undefined) => (v === undefined || v === null ? null : storableString(String(v)));
    const businessIds: Record<string, string> = {};
    for (const [k, v] of Object.entries(input.businessIds ?? {})) {
      if (v !== undefined && v !== null) businessIds[storableString(k)] = storableString(String(v));
    }
    const storable = toStorableJson(input.details ?? {});
    const details: Record<string, unknown> =
      storable !== null && typeof storable === 'object' && !Array.isArray(storable)
        ? (storable as Record<string, unknown>)
        : { value: storable };
    const type = storableString(input.type);
    const commandId = text(input.commandId);
    if (this.options.redaction && !this.options.redaction.empty)
      this.options.redaction.apply({ tenantId: input.tenantId, type, commandId, businessIds, details });
    return {
      tenantId: input.tenantId,
      eventId: input.eventId ?? randomUUID(),
      occurredAt: (input.occurredAt ?? this.options.clock.now()).toISOString(),
      type,
      commandId,
      principalId: text(input.principalId),
      result: input.result,
      correlationId: text(input.correlationId),
      traceId: text(input.traceId),
      businessIds,
      details,
    };
  }

  private async drain(tenantId: string, queue: TenantQueue): Promise<void> {
    // Yield once so that the events appended in the same tick as the first one travel in its transaction.
    await Promise.resolve();
    try {
      while (queue.waiting.length > 0) await this.flushOnce(tenantId, queue, queue.waiting.splice(0, this.maxBatch));
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
      return;
    }
    this.options.metrics.auditAppends.inc({ result: 'success' }, batch.length);
    for (const w of batch) w.resolve();
    if (this.options.signing.enabled) await this.writeDueCheckpoints(tenantId, written);
  }

  /**
   * The locking way: one transaction that reads the head FOR UPDATE, then writes the batch and moves the head.
   * Staged events are claimed (their staged rows deleted) under that lock; one whose row is gone was chained by the
   * recovery already and is left out.
   */
  private writeBatch(tenantId: string, all: Waiter['event'][], stagedIds: string[]): Promise<AuditEvent[]> {
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
      const last = chained[chained.length - 1]!;
      const moved = await sql.query(INSERT_BATCH, [JSON.stringify(chained.map(toRow)), last.seq, last.hash]);
      if (moved.rowCount !== 1) throw new Error('the audit chain head vanished during an append');
      return chained;
    });
  }

  /** The batch chained onto the head this process wrote last, in one statement; null when the head has moved. */
  private async appendAfterKnownHead(
    tenantId: string,
    head: { seq: number; hash: string },
    events: Waiter['event'][],
    stagedIds: string[],
  ): Promise<AuditEvent[] | null> {
    const chained = chain(head, events);
    const last = chained[chained.length - 1]!;
    const params = [JSON.stringify(chained.map(toRow)), last.seq, last.hash, head.seq, head.hash];
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
    if (row.appended !== chained.length) throw new Error('the audit batch was not written whole');
    return chained;
  }

  /**
   * Checkpoints are signed after their events commit, in a transaction of their own, because signing may read the
   * key store: inside the append transaction that read would wait for a second connection (PGlite has one, and a
   * busy pool may have none free) while holding the chain head. A checkpoint only attests a prefix of an
   * append-only chain, so writing it a moment later attests the same thing; one lost to a crash is made up by the
   * next multiple, or by `checkpoint()`. A failure is logged and never fails the appends, which are durable.
   */
  private async writeDueCheckpoints(tenantId: string, written: AuditEvent[]): Promise<void> {
    const every = this.options.signing.checkpointEveryEvents;
    const due = written.filter((e) => e.seq % every === 0).map((e) => ({ seq: e.seq, hash: e.hash }));
    if (due.length === 0) return;
    try {
      const signed = await this.signCheckpoints(tenantId, due);
      await this.options.db.withTenant(tenantId, (sql) => sql.query(INSERT_CHECKPOINTS, [JSON.stringify(signed)]));
    } catch (error) {
      this.options.logger.error(
        { err: error, tenant_id: tenantId, seq: due[due.length - 1]!.seq },
        'audit checkpoint failed',
      );
    }
  }

  /** The tenant-scoped audit key (001 §6) is created on first use. */
  private async signCheckpoints(tenantId: string, heads: { seq: number; hash: string }[]): Promise<AuditCheckpoint[]> {
    const alias = auditKeyAlias(tenantId);
    let ensured = this.keysEnsured.get(alias);
    if (!ensured) {
      ensured = this.options.keys.ensure(alias, AUDIT_SIGNING_ALGORITHM);
      this.keysEnsured.set(alias, ensured);
      ensured.catch(() => this.keysEnsured.delete(alias));
    }
    await ensured;
    const iat = Math.floor(this.options.clock.now().getTime() / 1000);
    return Promise.all(
      heads.map(async ({ seq, hash }) => {
        const signature = await signJwt(
          this.options.keys,
          alias,
          { tenant: tenantId, seq, hash, iat },
          { typ: CHECKPOINT_TYPE },
        );
        const { kid } = decodeProtectedHeader(signature);
        return { tenantId, seq, hash, kid: String(kid), signature };
      }),
    );
  }

  // --- Recovering staged events -----------------------------------------------------------------------------------

  /**
   * Chains the staged events older than `olderThanSeconds` (audit-pending.ts): those whose process died, or lost
   * the database, between the commit of their unit of work and their chaining. Per tenant, under the chain head's
   * lock, so that an event is chained once whoever gets to it first. A recovered event is the staged version
   * (details.recovered: true): what the command knew only after its unit of work committed is not in it.
   * Answers how many events were chained.
   */
  async recoverPending(olderThanSeconds: number): Promise<number> {
    const cutoff = new Date(this.options.clock.now().getTime() - olderThanSeconds * 1000);
    const tenants = await this.options.db.withPlatform((sql) =>
      sql.query<{ tenant_id: string }>('SELECT DISTINCT tenant_id FROM audit_pending WHERE staged_at < $1', [cutoff]),
    );
    let recovered = 0;
    for (const { tenant_id: tenantId } of tenants.rows) {
      const written = await this.options.db.withTenant(tenantId, async (sql) => {
        const head = await lockHead(sql);
        const taken = await sql.query<{ event: PendingAuditEvent }>(
          'DELETE FROM audit_pending WHERE staged_at < $1 RETURNING event',
          [cutoff],
        );
        if (taken.rows.length === 0) return [];
        const events = taken.rows
          .map(({ event }) => ({ ...event, details: { ...event.details, recovered: true } }))
          .sort((a, b) => a.occurredAt.localeCompare(b.occurredAt) || a.eventId.localeCompare(b.eventId));
        const chained = chain(head, events);
        const last = chained[chained.length - 1]!;
        const moved = await sql.query(INSERT_BATCH, [JSON.stringify(chained.map(toRow)), last.seq, last.hash]);
        if (moved.rowCount !== 1) throw new Error('the audit chain head vanished during a recovery');
        return chained;
      });
      if (written.length === 0) continue;
      // The head this process knew is behind now: its next flush reads it under the lock.
      const queue = this.queues.get(tenantId);
      if (queue) queue.head = null;
      recovered += written.length;
      this.options.metrics.auditAppends.inc({ result: 'success' }, written.length);
      this.options.logger.warn({ tenant_id: tenantId, events: written.length }, 'staged audit events recovered');
      if (this.options.signing.enabled) await this.writeDueCheckpoints(tenantId, written);
    }
    return recovered;
  }

  // --- Reading (platform administrators) -----------------------------------------------------------------------

  /** Events ordered by (occurred_at, tenant_id, seq), one keyset page at a time. */
  async query(filter: AuditQuery): Promise<AuditPage> {
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
    const res =
      filter.tenantId !== undefined
        ? await this.options.db.withTenant(filter.tenantId, run)
        : await this.options.db.withPlatform(run);
    const events = res.rows.slice(0, limit).map(auditEventFromRow);
    const last = events[events.length - 1];
    return { events, nextCursor: res.rows.length > limit && last ? encodeCursor(last) : null };
  }

  // --- Verifying ------------------------------------------------------------------------------------------------

  /**
   * Recomputes a tenant's chain from genesis, streaming it in batches, and checks that it ends at the head; then
   * checks every checkpoint's signature and that it signs the chain's hash at its sequence number. Answers the
   * first entry that does not hold.
   */
  async verify(tenantId: string): Promise<AuditVerifyResult> {
    assertTenantId(tenantId);
    const { db } = this.options;
    // Head and highest sequence number from one statement, so from one snapshot: later appends only extend it.
    const anchor = await db.withTenant(tenantId, async (sql) => {
      const head = await sql.query<{
        head_seq: number | string | null;
        head_hash: string | null;
        max_seq: number | string | null;
      }>(
        `SELECT (SELECT seq FROM audit_heads) AS head_seq, (SELECT hash FROM audit_heads) AS head_hash,
                (SELECT max(seq) FROM audit_events) AS max_seq`,
      );
      const h = head.rows[0]!;
      const headSeq = h.head_seq === null ? 0 : Number(h.head_seq);
      const checkpoints = await sql.query<CheckpointRow>(
        'SELECT seq, hash, signature, kid FROM audit_checkpoints WHERE seq <= $1 ORDER BY seq',
        [Math.max(headSeq, Number(h.max_seq ?? 0))],
      );
      return {
        headSeq,
        headHash: h.head_hash ?? GENESIS_HASH,
        maxSeq: Number(h.max_seq ?? 0),
        checkpoints: checkpoints.rows,
      };
    });
    const end = Math.max(anchor.headSeq, anchor.maxSeq);
    const wanted = new Set(anchor.checkpoints.map((c) => Number(c.seq)));
    wanted.add(anchor.headSeq);
    const chainAt = new Map<number, { hash: string; eventId: string }>();

    let expected = 1;
    let prevHash = GENESIS_HASH;
    for (;;) {
      const batch = await db.withTenant(tenantId, (sql) =>
        sql.query<AuditEventRow>(
          `SELECT ${AUDIT_EVENT_COLUMNS} FROM audit_events WHERE seq >= $1 AND seq <= $2 ORDER BY seq LIMIT $3`,
          [expected, end, this.verifyBatch],
        ),
      );
      for (const row of batch.rows) {
        const event = auditEventFromRow(row);
        if (event.seq !== expected) return broken(event.seq, event.eventId, 'sequence_gap', expected);
        if (event.prevHash !== prevHash) return broken(event.seq, event.eventId, 'prev_hash_mismatch');
        if (eventHash(prevHash, event) !== event.hash) return broken(event.seq, event.eventId, 'hash_mismatch');
        if (wanted.has(event.seq)) chainAt.set(event.seq, { hash: event.hash, eventId: event.eventId });
        prevHash = event.hash;
        expected += 1;
      }
      if (batch.rows.length < this.verifyBatch) break;
    }
    const count = expected - 1;
    // Events removed from the end leave the head pointing past the chain; a head moved back leaves events past it.
    if (count < anchor.headSeq) return broken(expected, null, 'sequence_gap', expected);
    const atHead = anchor.headSeq === 0 ? { hash: GENESIS_HASH, eventId: null } : chainAt.get(anchor.headSeq)!;
    if (atHead.hash !== anchor.headHash || anchor.maxSeq > anchor.headSeq)
      return broken(anchor.headSeq, atHead.eventId, 'head_mismatch');

    const keys = new Map<string, CryptoKeyLike | null>();
    // Only a version of the tenant's own audit key may sign its checkpoints (a kid of any other key is refused).
    const auditKids =
      anchor.checkpoints.length === 0
        ? new Set<string>()
        : new Set(
            (await this.options.keys.list()).filter((k) => k.alias === auditKeyAlias(tenantId)).map((k) => k.kid),
          );
    for (const row of anchor.checkpoints) {
      const seq = Number(row.seq);
      const at = chainAt.get(seq);
      const payload = auditKids.has(row.kid) ? await this.checkpointPayload(row, keys) : null;
      if (!payload) return broken(seq, at?.eventId ?? null, 'checkpoint_signature_invalid');
      const attests = payload.tenant === tenantId && payload.seq === seq && payload.hash === row.hash;
      if (!attests || !at || at.hash !== row.hash) return broken(seq, at?.eventId ?? null, 'checkpoint_hash_mismatch');
    }
    return { ok: true, events: count, checkpoints: anchor.checkpoints.length };
  }

  /** The signed payload of a checkpoint, or null when its signature does not verify under the key its kid names. */
  private async checkpointPayload(
    row: CheckpointRow,
    keys: Map<string, CryptoKeyLike | null>,
  ): Promise<{ tenant?: unknown; seq?: unknown; hash?: unknown } | null> {
    if (!keys.has(row.kid)) {
      const jwk: JWK | null = await this.options.keys.publicJwkByKid(row.kid);
      keys.set(row.kid, jwk ? await importJWK(jwk, AUDIT_SIGNING_ALGORITHM).catch(() => null) : null);
    }
    const key = keys.get(row.kid);
    if (!key) return null;
    try {
      const { payload, protectedHeader } = await compactVerify(row.signature, key, {
        algorithms: [AUDIT_SIGNING_ALGORITHM],
      });
      if (protectedHeader.kid !== row.kid || protectedHeader.typ !== CHECKPOINT_TYPE) return null;
      const parsed: unknown = JSON.parse(new TextDecoder().decode(payload));
      return parsed !== null && typeof parsed === 'object' ? parsed : null;
    } catch {
      return null;
    }
  }
}

type CryptoKeyLike = Awaited<ReturnType<typeof importJWK>>;

function broken(
  seq: number,
  eventId: string | null,
  reason: AuditBreakReason,
  expectedSeq?: number,
): AuditVerifyResult {
  return {
    ok: false,
    firstBroken: {
      seq,
      eventId,
      reason,
      ...(expectedSeq !== undefined && reason === 'sequence_gap' ? { expectedSeq } : {}),
    },
  };
}

/** The events chained onto a head: sequence numbers and hashes. */
function chain(head: { seq: number; hash: string }, events: Omit<HashedEventFields, 'seq'>[]): AuditEvent[] {
  let seq = head.seq;
  let prevHash = head.hash;
  return events.map((event): AuditEvent => {
    seq += 1;
    const fields: HashedEventFields = { ...event, seq };
    const hash = eventHash(prevHash, fields);
    const chainedEvent = { ...fields, prevHash, hash };
    prevHash = hash;
    return chainedEvent;
  });
}

function toRow(e: AuditEvent): Record<string, unknown> {
  return {
    seq: e.seq,
    event_id: e.eventId,
    occurred_at: e.occurredAt,
    event_type: e.type,
    command_id: e.commandId,
    principal_id: e.principalId,
    result: e.result,
    correlation_id: e.correlationId,
    trace_id: e.traceId,
    business_ids: e.businessIds,
    details: e.details,
    prev_hash: e.prevHash,
    hash: e.hash,
  };
}

/** Locks the tenant's chain head (created at genesis on the first append). */
async function lockHead(sql: Sql): Promise<{ seq: number; hash: string }> {
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
