import type { PendingAuditEvent } from '../audit/audit-pending.js';
import type { AccessKind } from '../auth/policy.js';
import type { Sql } from '../db/database.js';
import type { Principal } from '../auth/principal.js';
import type { Logger } from '../observability/logger.js';
import type { TraceIds } from '../observability/trace-context.js';

/**
 * The context every command runs in: who, in which tenant, correlated how. Built once per request by the HTTP
 * layer (http/request-context.ts) or by a job.
 */
export interface CommandContext {
  tenantId: string;
  principal: Principal | null;
  correlationId: string;
  trace: TraceIds | null;
  log: Logger;
  /**
   * A unit of work the caller holds open, which the command joins: its writes and its audit event commit or roll
   * back with the caller's change (the OpenID4VCI issuer's offer starts a pipeline session and creates the token
   * service's grants in its own transaction). Absent: the command runs its own unit of work.
   */
  unit?: JoinedUnit | undefined;
}

/**
 * An open unit of work of one tenant that a command run by the holder of the unit joins (CommandContext.unit).
 * What must wait for the commit (chaining the joined commands' staged audit events, work that calls out) is
 * handed to `afterCommit`; it never runs when the unit rolls back.
 */
export interface JoinedUnit {
  readonly tenantId: string;
  readonly sql: Sql;
  /** Runs `task` once the unit has committed, before the holder's command answers; a task's failure is logged. */
  afterCommit(task: () => Promise<void>): void;
}

export interface UnitOfWorkOptions {
  /**
   * The error the command will answer after this unit commits (a refusal whose consequence is itself a change, as a
   * refresh-token reuse revokes its grant): the staged event records that failure, so a recovered event says so.
   */
  answers?: unknown;
}

/**
 * The context a command runs in under the command bus: the caller's context, and the way to write so that the
 * change and the execution's audit event commit together (issue 13 §7: a command that answers an error has changed
 * nothing, and a committed change always has its event).
 */
export interface ExecutionContext extends CommandContext {
  /** The reason of the policy decision that allowed the execution (for the events a command writes itself). */
  readonly policyReason: string;
  /**
   * Runs `fn` in one transaction of the tenant and stages the execution's audit event in it (audit-pending.ts), so
   * that they commit together. Once it has committed the command must not fail: the change is made, and the bus
   * answers the command's result even when chaining the event has to wait for the recovery (the database lost
   * meanwhile). So it is the last step that can fail: what may fail (signing, a call out) comes before it.
   * `unit` is the open unit to hand to another context's command that must commit with this one
   * (CommandContext.unit). When the command itself runs in a caller's unit (`ctx.unit`), `fn` runs in that one.
   */
  unitOfWork<T>(fn: (sql: Sql, unit: JoinedUnit) => Promise<T>, options?: UnitOfWorkOptions): Promise<T>;
  /**
   * For a write made by one statement over many requests' rows (the token endpoint's batched redemptions): the
   * execution's audit event, prepared for staging, for the statement to stage with the rows it changes
   * (`stageAuditEventsFrom`); the command calls `committed()` once it knows the statement changed its row.
   */
  auditIntent(): { event: PendingAuditEvent; committed(): void };
}

/**
 * Runs writes in one transaction of a tenant. A service whose writes a command makes takes one, so that the writes
 * join the command's unit of work (`unitFor(ctx)`) and commit with its audit event; a caller outside the command bus
 * (a job, a test) gives a plain transaction of the tenant.
 */
export type WriteUnit = <T>(fn: (sql: Sql) => Promise<T>) => Promise<T>;

/** The command's unit of work as a WriteUnit, to hand to the service that makes its writes. */
export const unitFor =
  (ctx: ExecutionContext): WriteUnit =>
  (fn) =>
    ctx.unitOfWork(fn);

/**
 * One use case. Its id is its policy action and its audit command id (001 §5), e.g. `party-rest.persons.create`.
 * Commands are defined in `src/commands/<verb-noun>.ts` of each context.
 */
export interface Command<I, O> {
  id: string;
  access: AccessKind;
  /** A scope that grants the command to any principal of the tenant holding it (service-to-service callers). */
  requiredScope?: string;
  /** Identifiers of the business objects, recorded in the audit event (never personal data). */
  businessIds?: (input: I, output: O | undefined) => Record<string, string>;
  /**
   * `auto`: the bus writes one audit event per execution. `self`: the command writes its own, richer events
   * (the bus still records denials).
   */
  audit?: 'auto' | 'self';
  /**
   * The tenant whose chain records the bus's events of an execution (its denial, and its event under `auto`), when
   * that is not `ctx.tenantId`; null: no chain (a read across every tenant, or one naming a tenant the registry does
   * not know, belongs to no tenant's chain; the request's log line still records it). Only for commands that do not
   * write: a unit of work stages its event in its own tenant.
   */
  auditTenant?: (ctx: CommandContext) => string | null;
  run(ctx: ExecutionContext, input: I): Promise<O>;
}

export const defineCommand = <I, O>(command: Command<I, O>): Command<I, O> => command;
