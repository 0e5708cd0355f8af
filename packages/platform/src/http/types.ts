import type { FastifyRequest } from 'fastify';
import type { ApiFamily } from '../errors/index.js';
import type { Principal } from '../auth/principal.js';
import type { Logger } from '../observability/logger.js';
import type { TraceIds } from '../observability/trace-context.js';
import type { CommandContext } from '../commands/command.js';

/** Per-route settings, given as Fastify route `config`. */
export interface PlatformRouteConfig {
  /** Error envelope of the route's API family (default: the app's). */
  family?: ApiFamily;
  /** `none`: the route runs outside any tenant (operational endpoints). Default `required`. */
  tenant?: 'required' | 'none';
  /** `none`: the route authenticates its callers itself (OAuth client authentication); default `bearer`. */
  auth?: 'bearer' | 'none';
  /** false: not rate limited; a function: the key of the client (default: the principal's client, else the IP). */
  rateLimit?: false | ((request: FastifyRequest) => string | undefined);
  /**
   * true: X-Tenant-ID names the tenant when the request comes from trusted infrastructure
   * (`tenancy.trustedTenantOverride`; the party API, 001 §5); from anyone else it is ignored and logged.
   */
  tenantOverride?: boolean;
}

export interface RequestState {
  /** The matched route template (undefined when no route matched). */
  route: string | undefined;
  routeConfig: PlatformRouteConfig;
  correlationId: string;
  trace: TraceIds;
  tenantId: string | null;
  principal: Principal | null;
  /** X-Tenant-Id as sent, for the logs only. */
  claimedTenantId: string | undefined;
  /** A logger with the request's context fields (made on first use). */
  readonly log: Logger;
  startedAt: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    state: RequestState;
  }
  // Declaration merging: Fastify's route config gains the platform's members (the interface is not empty in effect).
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface FastifyContextConfig extends PlatformRouteConfig {}
}

/**
 * The command context of a request (commandContext). A class rather than an object literal: the logger is made on
 * first use through a getter, and an object literal with a getter costs V8 about half a microsecond to create (a
 * runtime call per accessor), a class instance a few nanoseconds. Its fields are its own; `log` is on the prototype
 * (so an object spread of it would not carry `log`: build a context with its fields instead).
 */
class RequestCommandContext implements CommandContext {
  readonly tenantId: string;
  readonly principal: Principal | null;
  readonly correlationId: string;
  readonly trace: TraceIds;

  constructor(
    private readonly state: RequestState,
    tenantId: string,
  ) {
    this.tenantId = tenantId;
    this.principal = state.principal;
    this.correlationId = state.correlationId;
    this.trace = state.trace;
  }

  /** The request's logger, made on first use (RequestState.log): most commands never log. */
  get log(): Logger {
    return this.state.log;
  }
}

/** The command context of a request whose tenant has been resolved. */
export function commandContext(request: FastifyRequest): CommandContext {
  const s = request.state;
  if (s.tenantId === null) throw new Error('commandContext() on a route without tenant resolution');
  return new RequestCommandContext(s, s.tenantId);
}
