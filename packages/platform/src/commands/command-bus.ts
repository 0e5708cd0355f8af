import { AppError, isAppError } from '../errors/index.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { PolicyDecisionPoint } from '../auth/policy.js';
import type { Metrics } from '../observability/metrics.js';
import type { Logger } from '../observability/logger.js';
import type { Command, CommandContext } from './command.js';

/**
 * Runs commands: policy first (action = command id), then the command, then one audit event and the metrics.
 * An allowed decision is recorded in the execution's own audit event (details.policy); a denial writes an
 * `authorization.denied` event. The audit event is durable before the result is returned.
 */
export class CommandBus {
  constructor(
    private readonly deps: {
      policy: PolicyDecisionPoint;
      audit: AuditLog;
      metrics: Metrics;
      redactCommands?: readonly string[];
    },
  ) {}

  async execute<I, O>(command: Command<I, O>, ctx: CommandContext, input: I): Promise<O> {
    const started = performance.now();
    // The command's logger (a child with command_id) is made only when something logs: most executions log
    // nothing, and a child logger costs more than the rest of the bus.
    let log: Logger | undefined;
    const runCtx: CommandContext = {
      tenantId: ctx.tenantId,
      principal: ctx.principal,
      correlationId: ctx.correlationId,
      trace: ctx.trace,
      get log() {
        log ??= ctx.log.child({ command_id: command.id });
        return log;
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
      await this.deps.audit.append({
        tenantId: ctx.tenantId,
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
    if (command.audit !== 'self') {
      const redact = this.deps.redactCommands?.includes(command.id) ?? false;
      await this.deps.audit.append({
        tenantId: ctx.tenantId,
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
      });
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
