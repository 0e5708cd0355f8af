import type { AccessKind } from '../auth/policy.js';
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
}

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
  run(ctx: CommandContext, input: I): Promise<O>;
}

export const defineCommand = <I, O>(command: Command<I, O>): Command<I, O> => command;
