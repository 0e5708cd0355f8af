import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest, type RawServerDefault } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError, type ApiFamily } from '../errors/index.js';
import { resolveTenant } from '../tenancy/index.js';
import { traceIdsFor, type TraceIds } from '../observability/trace-context.js';
import type { Logger } from '../observability/logger.js';
import type { PlatformRouteConfig, RequestState } from './types.js';
import type { Platform } from '../platform.js';
import { errorHandler } from './error-handler.js';
import { registerOperationalRoutes, type ReadinessCheck } from './operational-routes.js';
import './types.js';

export interface RoleAppOptions {
  /** Role name, used in metrics labels, logs and the OpenAPI title. */
  role: string;
  title: string;
  /** Default error envelope of the app's routes. */
  family: ApiFamily;
  /** Extra readiness checks of the role (besides database, keys, tenants and jobs). */
  readiness?: ReadinessCheck[];
  /** Route prefixes that the OpenAPI document covers (default: every route except the operational ones). */
  bodyLimitBytes?: number;
}

const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A role's Fastify app, typed with the TypeBox provider: route schemas type the handlers. */
export type RoleApp = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

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
    genReqId: () => randomUUID(),
    // Malformed JSON with duplicate or prototype keys is refused rather than silently merged.
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: false } },
    routerOptions: { maxParamLength: 500 },
  }).withTypeProvider<TypeBoxTypeProvider>();

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: options.title, version: config.build.version },
    },
    hideUntagged: false,
    transform: ({ schema, url }) => ({ schema: (url.startsWith('/openapi') ? { ...schema, hide: true } : schema) as never, url }),
  });

  app.decorateRequest('state', null as never);

  app.addHook('onRequest', async (request, reply) => {
    const header = request.headers['x-correlation-id'];
    const correlationId = typeof header === 'string' && CORRELATION_ID.test(header) ? header : request.id;
    reply.header('x-correlation-id', correlationId);
    const trace = traceIdsFor(str(request.headers.traceparent), str(request.headers.tracestate));
    // routeOptions is a getter that builds a new object on every access: read it once per request.
    const route = request.routeOptions;
    const routeConfig = route.config ?? {};
    const state = newRequestState(log, correlationId, trace, str(request.headers['x-tenant-id']), route.url, routeConfig);
    request.state = state;
    const authorization = request.headers.authorization;
    if (routeConfig.auth !== 'none' && authorization && /^bearer /i.test(authorization)) {
      if (!platform.authenticator.configured) {
        throw new AppError('invalid_token', 'No token issuer is configured for this API.', { headers: { 'www-authenticate': 'Bearer error="invalid_token"' } });
      }
      state.principal = (await platform.authenticator.authenticate(authorization.slice(7).trim())).principal;
    }
    if (routeConfig.tenant !== 'none' && route.url !== undefined) {
      state.tenantId = resolveTenant(platform.tenants, {
        principal: state.principal,
        host: request.hostname || undefined,
        defaultTenant: config.tenancy.defaultTenant,
      });
    }
    if (config.rateLimit.enabled && typeof routeConfig.rateLimit !== 'function') await applyRateLimit(request, reply);
  });

  /** Rate limiting per client (issue 2 §12): 429 rate_limited with an integer Retry-After. */
  async function applyRateLimit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const routeConfig = request.state.routeConfig;
    if (routeConfig.rateLimit === false || request.state.route === undefined) return;
    const client =
      (typeof routeConfig.rateLimit === 'function' ? routeConfig.rateLimit(request) : undefined) ??
      request.state.principal?.clientId ??
      request.state.principal?.id ??
      request.ip;
    const key = `${options.role}:${request.state.tenantId ?? '-'}:${client}`;
    const decision = await platform.rateLimiter.consume(key, config.rateLimit.requestsPerWindow, config.rateLimit.windowSeconds);
    if (!decision.allowed) {
      throw new AppError('rate_limited', 'Too many requests; retry later.', { headers: { 'retry-after': String(decision.retryAfterSeconds) } });
    }
    reply.header('ratelimit-remaining', String(decision.remaining));
  }

  if (config.rateLimit.enabled) {
    // A route whose client key needs the parsed body (OAuth client_id in a form) is limited in its own preHandler;
    // every other route in onRequest (one hook less per request).
    app.addHook('onRoute', (route) => {
      if (typeof route.config?.rateLimit !== 'function') return;
      const existing = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler];
      route.preHandler = [...existing, (request: FastifyRequest, reply: FastifyReply) => applyRateLimit(request, reply)];
    });
  }

  // Labelled children of the HTTP metrics, cached per series: resolving labels on every request cost ~2 µs.
  const seriesCache = new Map<string, ReturnType<typeof metrics.httpRequests.labels>>();
  const latencyCache = new Map<string, ReturnType<typeof metrics.httpDuration.labels>>();
  const httpSeries = (method: string, route: string, status: number) => {
    const key = `${method} ${route} ${status}`;
    let child = seriesCache.get(key);
    if (!child) seriesCache.set(key, (child = metrics.httpRequests.labels({ role: options.role, method, route, status: String(status) })));
    return child;
  };
  const httpLatency = (method: string, route: string) => {
    const key = `${method} ${route}`;
    let child = latencyCache.get(key);
    if (!child) latencyCache.set(key, (child = metrics.httpDuration.labels({ role: options.role, method, route })));
    return child;
  };

  app.addHook('onResponse', (request, reply, done) => {
    const route = request.state?.route ?? 'unmatched';
    const seconds = (performance.now() - (request.state?.startedAt ?? performance.now())) / 1000;
    httpSeries(request.method, route, reply.statusCode).inc();
    httpLatency(request.method, route).observe(seconds);
    // The route template, never the raw URL: query strings carry codes, tokens and state.
    const fields = { method: request.method, route, status: reply.statusCode, duration_ms: Math.round(seconds * 1000 * 100) / 100 };
    if (request.state) log.info({ ...contextFields(request.state), ...fields }, 'request completed');
    else log.info(fields, 'request completed');
    done();
  });

  app.setErrorHandler(errorHandler(options.role, options.family, metrics));
  app.setNotFoundHandler((request, reply) => {
    const family = options.family;
    return errorHandler(options.role, family, metrics)(new AppError('not_found', 'No such endpoint.'), request, reply);
  });

  registerOperationalRoutes(app, platform, options.readiness ?? []);
  app.get('/openapi.json', { config: { tenant: 'none', rateLimit: false }, schema: { hide: true } }, async () => app.swagger());
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

/**
 * The request's state. Its child logger is made on first use (most requests only write the completion line,
 * which takes the context fields directly), once tenant and principal are known.
 */
function newRequestState(
  root: Logger,
  correlationId: string,
  trace: TraceIds,
  claimedTenant: string | undefined,
  route: string | undefined,
  routeConfig: PlatformRouteConfig,
): RequestState {
  let child: Logger | undefined;
  const state: RequestState = {
    route,
    routeConfig,
    correlationId,
    trace,
    tenantId: null,
    principal: null,
    claimedTenantId: claimedTenant?.slice(0, 64),
    startedAt: performance.now(),
    get log() {
      child ??= root.child(contextFields(state));
      return child;
    },
  };
  return state;
}

export type { FastifyRequest };
