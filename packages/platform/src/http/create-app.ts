import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type RawServerDefault,
} from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError, type ApiFamily } from '../errors/index.js';
import { resolveTenant, TrustedTenantOverride } from '../tenancy/index.js';
import { traceIdsFor, type TraceIds } from '../observability/trace-context.js';
import { randomUuid } from '../observability/random-ids.js';
import { createAccessLog } from '../observability/access-log.js';
import type { HttpRouteSeries } from '../observability/http-metrics.js';
import type { RateLimitDecision } from '../ratelimit/rate-limiter.js';
import type { Principal } from '../auth/principal.js';
import type { Logger } from '../observability/logger.js';
import type { PlatformRouteConfig, RequestState } from './types.js';
import type { Platform } from '../platform.js';
import { clientErrorHandler, errorHandler, frameworkErrorHandler } from './error-handler.js';
import { recordTrustRefusal } from './authentication-events.js';
import { registerOperationalRoutes, type OperationalSet, type ReadinessCheck } from './operational-routes.js';
import './types.js';

export interface RoleAppOptions {
  /** Role name, used in metrics labels, logs and the OpenAPI title. */
  role: string;
  title: string;
  /** Default error envelope of the app's routes. */
  family: ApiFamily;
  /** Extra readiness checks of the role (besides database, keys, tenants and jobs). */
  readiness?: ReadinessCheck[];
  /**
   * Which operational endpoints the app serves (issue 13 §3): `all` (/health, /ready, /version, /metrics: the
   * management listener, and a standalone app), `health` (a role listener: /health only), or `health-readiness`
   * (a role listener whose /health reports its readiness as booleans: the bridge, 000 §4.5). Default `all`.
   */
  operational?: OperationalSet;
  /** Route prefixes that the OpenAPI document covers (default: every route except the operational ones). */
  bodyLimitBytes?: number;
}

const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A role's Fastify app, typed with the TypeBox provider: route schemas type the handlers. */
export type RoleApp = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/**
 * Builds the Fastify app of one role with the platform middleware: correlation id and trace context, bearer
 * authentication, tenant resolution, rate limiting, one log line per request, metrics, the error model, the
 * operational endpoints and the OpenAPI document (`GET /openapi.json`).
 */
export async function createRoleApp(platform: Platform, options: RoleAppOptions): Promise<RoleApp> {
  const { config, metrics, logger } = platform;
  const log = logger.child({ role: options.role });
  const app = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    // One line per request is written by our onResponse hook (route template, never the raw URL).
    logController: new LogController({ disableRequestLogging: true }),
    // Fastify would make a child logger per request for request.log; the platform's request state carries its own
    // (made only when used), so request.log is the role's logger itself.
    childLoggerFactory: (logger) => logger,
    bodyLimit: options.bodyLimitBytes ?? config.server.bodyLimitBytes,
    trustProxy: config.server.trustProxy,
    // A v4 UUID cut from a pooled random hex string (observability/random-ids.ts): crypto.randomUUID() cost ~1 µs.
    genReqId: randomUuid,
    // Malformed JSON with duplicate or prototype keys is refused rather than silently merged.
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: false } },
    routerOptions: { maxParamLength: 500 },
    // Errors before routing answer in the family's envelope too (issue 14 §9): the parser's (431, 408, 400) and
    // Fastify's own (a URL that does not decode, a path parameter too long).
    clientErrorHandler: clientErrorHandler(options.family),
    frameworkErrors: frameworkErrorHandler(options.role, options.family, metrics),
  }).withTypeProvider<TypeBoxTypeProvider>();

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: options.title, version: config.build.version },
    },
    hideUntagged: false,
    transform: ({ schema, url }) => ({
      schema: (url.startsWith('/openapi') ? { ...schema, hide: true } : schema) as never,
      url,
    }),
  });

  app.decorateRequest('state', null as never);

  const rateLimiting = config.rateLimit.enabled;
  const tenantOverride = new TrustedTenantOverride(config.tenancy.trustedTenantOverride);
  const limiter = platform.rateLimiter;
  const accessLog = createAccessLog(log);

  // The request middleware is written as callback hooks that finish synchronously unless a step must wait (a
  // bearer token to verify, a shared rate limiter): an async hook costs a promise and a microtask turn per
  // request, which on a simple route was a measurable share of its time (docs/decisions.md, request middleware).
  app.addHook('onRequest', (request, reply, done) => {
    const headers = request.headers;
    const header = headers['x-correlation-id'];
    const correlationId = typeof header === 'string' && CORRELATION_ID.test(header) ? header : request.id;
    reply.header('x-correlation-id', correlationId);
    const trace = traceIdsFor(str(headers.traceparent), str(headers.tracestate));
    // routeOptions is a getter that builds a new object on every access: read it once per request.
    const route = request.routeOptions;
    const routeConfig: PlatformRouteConfig = route.config ?? NO_ROUTE_CONFIG;
    const state = new RequestContext(log, correlationId, trace, str(headers['x-tenant-id']), route.url, routeConfig);
    request.state = state;
    const authorization = headers.authorization;
    if (routeConfig.auth !== 'none' && authorization && BEARER.test(authorization)) {
      if (!platform.authenticator.configured) {
        throw new AppError('invalid_token', 'No token issuer is configured for this API.', {
          headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
        });
      }
      const token = authorization.slice(7).trim();
      // A token verified before whose key is still served (JwtAuthenticator.rememberedNow): no promise, no wait.
      const remembered = platform.authenticator.rememberedNow(token);
      if (remembered) {
        state.principal = remembered.principal;
        afterAuthentication(request, reply, done);
        return;
      }
      platform.authenticator.authenticate(token).then(
        (result) => {
          state.principal = result.principal;
          afterAuthentication(request, reply, done);
        },
        (error: Error) => {
          // An authentication event, rate-limited per source address (authentication-events.ts); never the token.
          recordTrustRefusal(
            platform,
            state,
            platform.tenants.hasHostMappings ? request.hostname : undefined,
            error,
            request.ip,
            token,
          );
          done(error);
        },
      );
      return;
    }
    afterAuthentication(request, reply, done);
  });

  /** Tenant resolution (001 §5), then rate limiting unless the route keys it on its parsed body. */
  function afterAuthentication(request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
    const state = request.state;
    if (state.routeConfig.tenant !== 'none' && state.route !== undefined) {
      try {
        state.tenantId = resolveTenant(platform.tenants, {
          principal: state.principal,
          // Parsing the Host header is only worth it when some host names a tenant.
          host: platform.tenants.hasHostMappings ? request.hostname || undefined : undefined,
          defaultTenant: config.tenancy.defaultTenant,
          trustedOverride: state.routeConfig.tenantOverride ? trustedOverride(request) : undefined,
        });
      } catch (error) {
        done(error as Error);
        return;
      }
    }
    if (rateLimiting && typeof state.routeConfig.rateLimit !== 'function') applyRateLimit(request, reply, done);
    else done();
  }

  /**
   * X-Tenant-ID on a route that honours it (001 §5): the tenant when the peer is trusted infrastructure, else
   * ignored — and logged, since an untrusted caller naming a tenant is worth an operator's look.
   */
  function trustedOverride(request: FastifyRequest): string | undefined {
    const claimed = request.state.claimedTenantId;
    if (claimed === undefined) return undefined;
    const secret = request.headers['x-tenant-override-secret'];
    if (tenantOverride.trusts(request.socket.remoteAddress, typeof secret === 'string' ? secret : undefined))
      return claimed;
    request.state.log.warn({ peer: request.socket.remoteAddress }, 'X-Tenant-ID from an untrusted source ignored');
    return undefined;
  }

  /** Rate limiting per client (issue 2 §12): 429 rate_limited with an integer Retry-After. */
  function applyRateLimit(request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
    const state = request.state;
    const routeConfig = state.routeConfig;
    if (routeConfig.rateLimit === false || state.route === undefined) {
      done();
      return;
    }
    const client =
      (typeof routeConfig.rateLimit === 'function' ? routeConfig.rateLimit(request) : undefined) ??
      state.principal?.clientId ??
      state.principal?.id ??
      request.ip;
    const key = `${options.role}:${state.tenantId ?? '-'}:${client}`;
    const { requestsPerWindow, windowSeconds } = config.rateLimit;
    if (limiter.consumeNow) rateLimitDecided(reply, limiter.consumeNow(key, requestsPerWindow, windowSeconds), done);
    else
      limiter
        .consume(key, requestsPerWindow, windowSeconds)
        .then((decision) => rateLimitDecided(reply, decision, done), done);
  }

  if (rateLimiting) {
    // A route whose client key needs the parsed body (OAuth client_id in a form) is limited in its own preHandler;
    // every other route in onRequest (one hook less per request).
    app.addHook('onRoute', (route) => {
      if (typeof route.config?.rateLimit !== 'function') return;
      const existing =
        route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler];
      route.preHandler = [
        ...existing,
        (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) =>
          applyRateLimit(request, reply, done),
      ];
    });
  }

  // The metrics series and the log fields of each method and route, made once. Looked up by method, then by route
  // template: both strings are the same objects on every request (Node's method table, the route's url), so no key
  // is built and hashed per request.
  const routeCache = new Map<string, Map<string, RouteRecord>>();
  const routeRecord = (method: string, route: string): RouteRecord => {
    let byRoute = routeCache.get(method);
    if (!byRoute) routeCache.set(method, (byRoute = new Map()));
    let record = byRoute.get(route);
    if (!record) {
      record = {
        series: metrics.http.route(options.role, method, route),
        methodAndRouteJson: `"method":${JSON.stringify(method)},"route":${JSON.stringify(route)}`,
      };
      byRoute.set(route, record);
    }
    return record;
  };

  app.addHook('onResponse', (request, reply, done) => {
    const state = request.state as RequestState | null;
    const route = state?.route ?? 'unmatched';
    const now = performance.now();
    const seconds = (now - (state?.startedAt ?? now)) / 1000;
    const record = routeRecord(request.method, route);
    record.series.record(reply.statusCode, seconds);
    const durationMs = Math.round(seconds * 100_000) / 100;
    if (state) {
      accessLog({
        correlationId: state.correlationId,
        traceId: state.trace.traceId,
        spanId: state.trace.spanId,
        tenantId: state.tenantId,
        principalId: state.principal?.id,
        claimedTenantId: state.claimedTenantId,
        methodAndRouteJson: record.methodAndRouteJson,
        status: reply.statusCode,
        durationMs,
      });
    } else {
      log.info(
        { method: request.method, route, status: reply.statusCode, duration_ms: durationMs },
        'request completed',
      );
    }
    done();
  });

  app.setErrorHandler(errorHandler(options.role, options.family, metrics));
  app.setNotFoundHandler((request, reply) => {
    const family = options.family;
    return errorHandler(options.role, family, metrics)(new AppError('not_found', 'No such endpoint.'), request, reply);
  });

  registerOperationalRoutes(app, platform, options.readiness ?? [], options.operational ?? 'all');
  app.get('/openapi.json', { config: { tenant: 'none', rateLimit: false }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
  return app;
}

const str = (v: string | string[] | undefined) => (typeof v === 'string' ? v : undefined);

/** The context fields of every log line of a request (001 §4.5). */
function contextFields(state: RequestState): Record<string, unknown> {
  return {
    correlation_id: state.correlationId,
    trace_id: state.trace.traceId,
    span_id: state.trace.spanId,
    tenant_id: state.tenantId ?? undefined,
    principal_id: state.principal?.id,
    // X-Tenant-Id is for observability only: logged, never used for routing or authorization (001 §5).
    claimed_tenant_id: state.claimedTenantId,
  };
}

interface RouteRecord {
  series: HttpRouteSeries;
  methodAndRouteJson: string;
}

// Module-level rather than closures made per request: each closure also costs a name assignment under tsx.
function rateLimitDecided(reply: FastifyReply, decision: RateLimitDecision, done: (error?: Error) => void): void {
  if (!decision.allowed) {
    done(
      new AppError('rate_limited', 'Too many requests; retry later.', {
        headers: { 'retry-after': String(decision.retryAfterSeconds) },
      }),
    );
    return;
  }
  reply.header('ratelimit-remaining', String(decision.remaining));
  done();
}

const NO_ROUTE_CONFIG: PlatformRouteConfig = Object.freeze({});
const BEARER = /^bearer /i;

/**
 * The request's state. Its child logger is made on first use (most requests only write the completion line,
 * which takes the context fields directly), once tenant and principal are known.
 */
class RequestContext implements RequestState {
  tenantId: string | null = null;
  principal: Principal | null = null;
  readonly claimedTenantId: string | undefined;
  readonly startedAt = performance.now();
  private child: Logger | undefined;

  constructor(
    private readonly root: Logger,
    readonly correlationId: string,
    readonly trace: TraceIds,
    claimedTenant: string | undefined,
    readonly route: string | undefined,
    readonly routeConfig: PlatformRouteConfig,
  ) {
    this.claimedTenantId = claimedTenant?.slice(0, 64);
  }

  get log(): Logger {
    this.child ??= this.root.child(contextFields(this));
    return this.child;
  }
}

export type { FastifyRequest };
