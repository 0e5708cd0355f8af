import { randomUUID } from 'node:crypto';
import { AppError, isAppError } from '../errors/index.js';
import type { AuditEventInput, AuditLog } from '../audit/audit-log.js';
import { stageAuditEvents, type AuditStaging } from '../audit/audit-pending.js';
import type { Database } from '../db/database.js';
import type { PolicyDecisionPoint } from '../auth/policy.js';
import type { Metrics } from '../observability/metrics.js';
import type { Logger } from '../observability/logger.js';
import type { Command, CommandContext, ExecutionContext } from './command.js';

/**
 * Runs commands: policy first (action = command id), then the command, then one audit event and the metrics.
 * An allowed decision is recorded in the execution's own audit event (details.policy); a denial writes an
 * `authorization.denied` event. The audit event is durable before the result is returned.
 *
 * A command that writes does so through `unitOfWork` (or stages its event in its batched statement through
 * `auditIntent`): its change and its audit event commit together (issue 13 §7). Once they have, the command's
 * answer stands: chaining the staged event is attempted before answering, and when the database is lost meanwhile
 * the event stays staged, durable, for the recovery job (AuditStore.recoverPending), and the caller still gets its
 * result; answering an error there would have a client retry a change that was made (a refresh token rotated,
 * whose retry would then look like a reuse).
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
    },
  ) {}

  async execute<I, O>(command: Command<I, O>, ctx: CommandContext, input: I): Promise<O> {
    const started = performance.now();
    // The command's logger (a child with command_id) is made only when something logs: most executions log
    // nothing, and a child logger costs more than the rest of the bus.
    let log: Logger | undefined;
    const redact = this.deps.redactCommands?.includes(command.id) ?? false;
    const autoAudit = command.audit !== 'self';
    // The chain of the bus's events (Command.auditTenant); null: none.
    const auditTenantId = command.auditTenant ? command.auditTenant(ctx) : ctx.tenantId;
    /** The execution's event id once a unit of work stages it; `staged` once that unit committed. */
    let eventId: string | undefined;
    let staged = false;
    const event = (result: 'success' | 'failure', output: O | undefined, failure: unknown): AuditEventInput => ({
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
    });
    // The staged version is the event as known before the command's output: what a recovery chains.
    const pending = (answers?: unknown) => {
      if (!autoAudit || !this.deps.audit.prepare) return null;
      eventId ??= randomUUID();
      return this.deps.audit.prepare(
        answers === undefined ? event('success', undefined, undefined) : event('failure', undefined, answers),
      );
    };
    const db = this.deps.db;
    const runCtx: ExecutionContext = {
      tenantId: ctx.tenantId,
      principal: ctx.principal,
      correlationId: ctx.correlationId,
      trace: ctx.trace,
      get log() {
        log ??= ctx.log.child({ command_id: command.id });
        return log;
      },
      get policyReason() {
        return decision.reason;
      },
      unitOfWork: async (fn, options) => {
        if (!db) throw new Error(`command ${command.id} writes, but its command bus has no database`);
        if (auditTenantId !== ctx.tenantId)
          throw new Error(`command ${command.id} writes, but its audit events go to another chain`);
        const value = await db.withTenant(ctx.tenantId, async (sql) => {
          const result = await fn(sql);
          const staging = pending(options?.answers);
          if (staging) await stageAuditEvents(sql, [staging]);
          return result;
        });
        staged = eventId !== undefined;
        return value;
      },
      auditIntent: () => {
        const staging = pending();
        if (!staging) throw new Error(`command ${command.id} cannot stage its audit event here`);
        return { event: staging, committed: () => void (staged = true) };
      },
    };
    const decision = await this.deps.policy.decide({
      action: command.id,
      access: command.access,
      tenantId: ctx.tenantId,
      principal: ctx.principal,
      requiredScope: command.requiredScope,
    });
    if (!decision.allow) {
      this.deps.metrics.commandExecutions.inc({ command_id: command.id, result: 'denied' });
      if (auditTenantId !== null)
        await this.deps.audit.append({
          tenantId: auditTenantId,
          type: 'authorization.denied',
          commandId: command.id,
          principalId: ctx.principal?.id ?? null,
          result: 'denied',
          correlationId: ctx.correlationId,
          traceId: ctx.trace?.traceId,
          details: { reason: decision.reason },
        });
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
    this.deps.metrics.commandExecutions.inc({ command_id: command.id, result });
    this.deps.metrics.commandDuration.observe({ command_id: command.id }, (performance.now() - started) / 1000);
    if (autoAudit && staged) {
      // The change and its staged event have committed: the answer stands whatever happens to the chaining.
      if (failure !== undefined && !isAppError(failure))
        runCtx.log.error({ err: failure }, 'command failed after its unit of work committed');
      try {
        await this.deps.audit.append(event(result, output, failure), { staged: true });
      } catch (error) {
        runCtx.log.warn({ err: error, event_id: eventId }, 'audit event left staged for recovery');
      }
    } else if (autoAudit && auditTenantId !== null) {
      // A unit of work that did not commit (or whose commit was not confirmed) staged nothing under this id that
      // may be chained: the event gets an id of its own.
      eventId = undefined;
      await this.deps.audit.append(event(result, output, failure));
    }
    if (failure !== undefined) throw failure;
    return output as O;
  }
}

function safeBusinessIds<I, O>(command: Command<I, O>, input: I, output: O | undefined): Record<string, string> {
  try {
    return command.businessIds?.(input, output) ?? {};
  } catch {
    return {};
  }
}
