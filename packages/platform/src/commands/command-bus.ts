import { randomUUID } from 'node:crypto';
import { AppError, isAppError } from '../errors/index.js';
import type { AuditEventInput, AuditLog } from '../audit/audit-log.js';
import { stageAuditEvents, type AuditStaging, type PendingAuditEvent } from '../audit/audit-pending.js';
import type { Database } from '../db/database.js';
import type { PolicyDecisionPoint } from '../auth/policy.js';
import type { Metrics } from '../observability/metrics.js';
import type { Logger } from '../observability/logger.js';
import type { Command, CommandContext, ExecutionContext, JoinedUnit } from './command.js';

/** Where a logger comes from when one is needed: a child logger is made per request only when something logs. */
type LogSource = Pick<ExecutionContext, 'log'>;

const DONE: Promise<void> = Promise.resolve();

/**
 * Runs commands: policy first (action = command id), then the command, then one audit event and the metrics.
 * An allowed decision is recorded in the execution's own audit event (details.policy); a denial writes an
 * `authorization.denied` event. The audit event is durable before the result is returned.
 *
 * A command that writes does so through `unitOfWork` (or stages its event in its batched statement through
 * `auditIntent`): its change and its audit event commit together (issue 13 §7). Once they have, the command's
 * answer stands and is given at once: the staged event, durable already, is queued for chaining (group commit,
 * AuditAppender) and not waited for. A read of the audit first waits for what its process has queued
 * (AuditStore.settled); when the database is lost before the chaining, the event stays staged for the recovery job
 * (AuditStore.recoverPending). Answering an error there would have a client retry a change that was made (a
 * refresh token rotated, whose retry would then look like a reuse); waiting for the chaining cost each write a
 * round trip of latency and kept the group commit's batches small (docs/decisions.md).
 */
export class CommandBus {
  constructor(
    private readonly deps: {
      policy: PolicyDecisionPoint;
      audit: AuditLog & Partial<AuditStaging>;
      /** For units of work (ExecutionContext.unitOfWork); a bus without it runs commands that do not write. */
      db?: Database;
      metrics: Metrics;
      redactCommands?: readonly string[];
      /**
       * Backpressure: when more of a tenant's events than this wait in this process for chaining (a database slower
       * than the writes), a write waits for its own chaining again before it answers (default 10,000).
       */
      maxUnchainedEvents?: number;
    },
  ) {
    this.maxUnchained = deps.maxUnchainedEvents ?? 10_000;
  }

  private readonly maxUnchained: number;

  async execute<I, O>(command: Command<I, O>, ctx: CommandContext, input: I): Promise<O> {
    const started = performance.now();
    const redact = this.deps.redactCommands?.includes(command.id) ?? false;
    const autoAudit = command.audit !== 'self';
    // The chain of the bus's events (Command.auditTenant); null: none.
    const auditTenantId = command.auditTenant ? command.auditTenant(ctx) : ctx.tenantId;
    /** The execution's event id once a unit of work stages it; `staged` once that unit committed. */
    let eventId: string | undefined;
    let staged = false;
    /** The event as its unit of work staged it: its final version is chained from it (AuditStaging). */
    let stagedEvent: PendingAuditEvent | undefined;
    const audit = this.deps.audit;
    // Methods rather than arrow functions, here and in the execution context below: under tsx every arrow function
    // bound to a name gets that name set (Object.defineProperty) each time it is made, several per execution
    // (issue 22). None of them uses `this`, so each may be called unbound (`ctx.unitOfWork` is passed on so).
    const auditEvents = {
      event(result: 'success' | 'failure', output: O | undefined, failure: unknown): AuditEventInput {
        return {
          tenantId: auditTenantId ?? ctx.tenantId,
          type: 'command.executed',
          commandId: command.id,
          principalId: ctx.principal?.id ?? null,
          result,
          correlationId: ctx.correlationId,
          traceId: ctx.trace?.traceId,
          businessIds: redact ? { redacted: 'true' } : safeBusinessIds(command, input, output),
          details: {
            policy: decision.reason,
            ...(failure === undefined ? {} : { error: isAppError(failure) ? failure.code : 'server_error' }),
          },
          eventId,
        };
      },
      // The staged version is the event as known before the command's output: what a recovery chains.
      pending(answers?: unknown) {
        if (!autoAudit || !audit.prepare) return null;
        eventId ??= randomUUID();
        stagedEvent = audit.prepare(
          answers === undefined ? event('success', undefined, undefined) : event('failure', undefined, answers),
        );
        return stagedEvent;
      },
    };
    const event = auditEvents.event;
    const pending = auditEvents.pending;
    const db = this.deps.db;
    const joined = ctx.unit;
    if (joined && joined.tenantId !== ctx.tenantId)
      throw new Error(`command ${command.id} joins a unit of work of another tenant`);
    const decided = this.deps.policy.decide({
      action: command.id,
      access: command.access,
      tenantId: ctx.tenantId,
      principal: ctx.principal,
      requiredScope: command.requiredScope,
    });
    // The role policy decides synchronously: awaiting its answer would cost a microtask turn per command.
    const decision = 'then' in decided ? await decided : decided;
    const writes: Pick<ExecutionContext, 'unitOfWork' | 'auditIntent'> = {
      async unitOfWork(fn, options) {
        if (!db) throw new Error(`command ${command.id} writes, but its command bus has no database`);
        if (auditTenantId !== ctx.tenantId)
          throw new Error(`command ${command.id} writes, but its audit events go to another chain`);
        if (joined) {
          // The caller's unit: the change and the staged event commit with the caller's (chained after, below).
          const result = await fn(joined.sql, joined);
          const staging = pending(options?.answers);
          if (staging) await stageAuditEvents(joined.sql, [staging]);
          staged = eventId !== undefined;
          return result;
        }
        const afterCommit: (() => Promise<void>)[] = [];
        const value = await db.withTenant(ctx.tenantId, async (sql) => {
          const unit: JoinedUnit = { tenantId: ctx.tenantId, sql, afterCommit: (task) => void afterCommit.push(task) };
          const result = await fn(sql, unit);
          const staging = pending(options?.answers);
          if (staging) await stageAuditEvents(sql, [staging]);
          return result;
        });
        staged = eventId !== undefined;
        await Promise.all(
          afterCommit.map((task) =>
            task().catch((error: unknown) => runCtx.log.warn({ err: error }, 'a task after the unit of work failed')),
          ),
        );
        return value;
      },
      auditIntent() {
        const staging = pending();
        if (!staging) throw new Error(`command ${command.id} cannot stage its audit event here`);
        return {
          event: staging,
          committed() {
            staged = true;
          },
        };
      },
    };
    const runCtx = new Execution(ctx, command.id, decision.reason, writes);
    if (!decision.allow) {
      this.deps.metrics.commandSeries(command.id).record('denied');
      if (auditTenantId !== null)
        await this.record(
          {
            tenantId: auditTenantId,
            type: 'authorization.denied',
            commandId: command.id,
            principalId: ctx.principal?.id ?? null,
            result: 'denied',
            correlationId: ctx.correlationId,
            traceId: ctx.trace?.traceId,
            details: { reason: decision.reason },
          },
          joined,
          runCtx,
        );
      runCtx.log.info({ reason: decision.reason }, 'authorization denied');
      if (decision.reason === 'unauthenticated') {
        throw new AppError('unauthenticated', 'Authentication is required.', {
          headers: { 'www-authenticate': 'Bearer' },
        });
      }
      if (decision.reason === 'missing_scope') {
        throw new AppError('insufficient_scope', 'The token lacks the scope this action needs.', {
          headers: { 'www-authenticate': `Bearer error="insufficient_scope", scope="${command.requiredScope}"` },
        });
      }
      throw new AppError('policy_denied', 'The policy does not allow this action.');
    }

    let output: O | undefined;
    let failure: unknown;
    try {
      output = await command.run(runCtx, input);
    } catch (error) {
      failure = error;
    }
    const result = failure === undefined ? 'success' : 'failure';
    this.deps.metrics.commandSeries(command.id).record(result, (performance.now() - started) / 1000);
    if (autoAudit && staged && joined) {
      // Staged in the caller's unit: chained once that commits (nothing is chained when it rolls back).
      const final = event(result, output, failure);
      const stagedVersion = stagedEvent;
      joined.afterCommit(() => this.chainStaged(final, stagedVersion, runCtx));
    } else if (autoAudit && staged) {
      // The change and its staged event have committed: the answer stands whatever happens to the chaining.
      if (failure !== undefined && !isAppError(failure))
        runCtx.log.error({ err: failure }, 'command failed after its unit of work committed');
      await this.chainStaged(event(result, output, failure), stagedEvent, runCtx);
    } else if (autoAudit && auditTenantId !== null) {
      // A unit of work that did not commit (or whose commit was not confirmed) staged nothing under this id that
      // may be chained: the event gets an id of its own.
      eventId = undefined;
      await this.record(event(result, output, failure), joined, runCtx, failure !== undefined);
    }
    if (failure !== undefined) throw failure;
    return output as O;
  }
  /**
   * Queues a staged event for chaining and returns without waiting for it (the class comment): the event is durable
   * already. Only past `maxUnchainedEvents` of the tenant waiting in this process does the returned promise wait
   * for the chaining, so that the queue cannot outgrow the database. `stagedVersion`: the event as it was prepared
   * and staged, from which the final version is made when the audit log can (only the outcome is prepared again).
   * `logs`: its logger is made on first use (ExecutionContext.log), and only a failure here uses it.
   */
  private chainStaged(
    event: AuditEventInput,
    stagedVersion: PendingAuditEvent | undefined,
    logs: LogSource,
  ): Promise<void> {
    const audit = this.deps.audit;
    const appended =
      stagedVersion && audit.appendStagedOutcome
        ? audit.appendStagedOutcome(stagedVersion, event)
        : audit.append(event, { staged: true });
    const chained = appended.catch((error: unknown) => {
      logs.log.warn({ err: error, event_id: event.eventId }, 'audit event left staged for recovery');
    });
    return audit.backlog && audit.backlog(event.tenantId) > this.maxUnchained ? chained : DONE;
  }

  /**
   * Appends an event; in a caller's unit of work (a read or a refusal of a joined command), stages it there and
   * chains it after the commit: the caller's transaction holds the connection (the embedded engine has one).
   * `tolerant`: a failed command's event, whose staging may find the caller's transaction already aborted; the
   * command's own error is what the caller must see, so a staging failure is only logged.
   */
  private async record(
    input: AuditEventInput,
    joined: JoinedUnit | undefined,
    logs: LogSource,
    tolerant = false,
  ): Promise<void> {
    const audit = this.deps.audit;
    if (!joined || !audit.prepare) {
      await audit.append(input);
      return;
    }
    const staging = audit.prepare(input);
    try {
      await stageAuditEvents(joined.sql, [staging]);
    } catch (error) {
      if (!tolerant) throw error;
      logs.log.warn({ err: error }, 'the event of a failed joined command could not be staged');
      return;
    }
    const chained = { ...input, eventId: staging.eventId, occurredAt: new Date(staging.occurredAt) };
    joined.afterCommit(() => this.chainStaged(chained, staging, logs));
  }
}

/**
 * The context a command runs in (ExecutionContext). A class rather than an object literal: its logger (a child with
 * command_id) is made only when something logs, through a getter, since most executions log nothing and a child
 * logger costs more than the rest of the bus; and an object literal with a getter costs V8 about half a microsecond
 * to create, a class instance a few nanoseconds.
 */
class Execution implements ExecutionContext {
  readonly tenantId: string;
  readonly principal: CommandContext['principal'];
  readonly correlationId: string;
  readonly trace: CommandContext['trace'];
  readonly unit: JoinedUnit | undefined;
  readonly unitOfWork: ExecutionContext['unitOfWork'];
  readonly auditIntent: ExecutionContext['auditIntent'];
  private childLog: Logger | undefined;

  constructor(
    private readonly caller: CommandContext,
    private readonly commandId: string,
    readonly policyReason: string,
    writes: Pick<ExecutionContext, 'unitOfWork' | 'auditIntent'>,
  ) {
    this.tenantId = caller.tenantId;
    this.principal = caller.principal;
    this.correlationId = caller.correlationId;
    this.trace = caller.trace;
    this.unit = caller.unit;
    this.unitOfWork = writes.unitOfWork;
    this.auditIntent = writes.auditIntent;
  }

  get log(): Logger {
    this.childLog ??= this.caller.log.child({ command_id: this.commandId });
    return this.childLog;
  }
}

function safeBusinessIds<I, O>(command: Command<I, O>, input: I, output: O | undefined): Record<string, string> {
  try {
    return command.businessIds?.(input, output) ?? {};
  } catch {
    return {};
  }
}
