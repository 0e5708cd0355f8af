import { decodeJwt } from 'jose';
import { IssuerTrustError } from '../auth/jwt-authenticator.js';
import { isAppError } from '../errors/index.js';
import { resolveTenant } from '../tenancy/index.js';
import type { Platform } from '../platform.js';
import type { RequestState } from './types.js';

/** How the caller tried to authenticate (001 §6 "authentication event"). */
export type AuthenticationMethod = 'bearer_token' | 'client_authentication' | 'dpop_proof' | 'capability_token';

/** One refused authentication. Never the secret: the token, the client secret, the proof stay out. */
export interface AuthenticationFailure {
  tenantId: string;
  method: AuthenticationMethod;
  /** Short machine-readable kind, e.g. `expired`, `invalid_client`, `issuer_role_not_trusted`. */
  reason: string;
  /** Who the caller claimed to be (token subject, client id), unverified; truncated. */
  claimedPrincipal: string | null;
  /** The address the request came from: the key of the rate limit. */
  source: string;
  correlationId?: string | undefined;
  traceId?: string | undefined;
  /** Further public facts (issuer, endpoint), each truncated. */
  details?: Record<string, string>;
}

export interface AuthenticationEventOptions {
  /** Length of one accounting window (default 60 s). */
  windowMs: number;
  /** Events written per source address and tenant in one window (default 5). */
  eventsPerSource: number;
  /** Events written per tenant in one window, whatever the source (default 50). */
  eventsPerTenant: number;
  /** Source addresses counted one by one per tenant and window; the rest are counted together (default 10,000). */
  maxTrackedSources: number;
  /** Sources named in a summary, most suppressed first (default 20). */
  summarySources: number;
}

export const DEFAULT_AUTHENTICATION_EVENT_OPTIONS: AuthenticationEventOptions = {
  windowMs: 60_000,
  eventsPerSource: 5,
  eventsPerTenant: 50,
  maxTrackedSources: 10_000,
  summarySources: 20,
};

const OTHER_SOURCES = '(other sources)';
const cut = (value: string, max = 256) => value.slice(0, max);

interface SourceCount {
  written: number;
  suppressed: number;
}

interface TenantWindow {
  startedAt: Date;
  written: number;
  suppressed: number;
  sources: Map<string, SourceCount>;
  /** Suppressed events by `method:reason`. */
  reasons: Map<string, number>;
  /** Successful service authentications by `method:principal`. */
  successes: Map<string, number>;
}

/**
 * Authentication events (001 §6; issue 15 item 3), written to the tenant's audit chain as `authentication.failed`
 * without ever blocking or failing the refusal they describe.
 *
 * A flood must not fill the audit, so writing is rate-limited per tenant and source address within a window: the
 * first `eventsPerSource` refusals of a source (and at most `eventsPerTenant` of the tenant) are written one by one;
 * the rest are counted, by reason and by source, and written as one summary event per tenant when the window ends
 * (`details.summary = true`, `details.suppressed` = the count). So a window writes at most eventsPerTenant + 1
 * failure events per tenant and replica, and every refusal is either an event or counted in one.
 *
 * Successful authentications of services (clients at the token endpoint) are summarised, not written one by one:
 * one `authentication.succeeded` event per tenant and window counts them by client. Counts are per process; with
 * several replicas each writes its own events and summaries.
 */
export class AuthenticationEvents {
  readonly options: AuthenticationEventOptions;
  private windows = new Map<string, TenantWindow>();
  private readonly pending = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly platform: Platform,
    options: Partial<AuthenticationEventOptions> = {},
  ) {
    this.options = { ...DEFAULT_AUTHENTICATION_EVENT_OPTIONS, ...options };
  }

  /** Records a refusal: written now, or counted for the window's summary. */
  failed(failure: AuthenticationFailure): void {
    const w = this.windowOf(failure.tenantId);
    let source = w.sources.get(failure.source);
    if (!source) {
      const key = w.sources.size < this.options.maxTrackedSources ? failure.source : OTHER_SOURCES;
      source = w.sources.get(key) ?? { written: 0, suppressed: 0 };
      w.sources.set(key, source);
    }
    if (source.written < this.options.eventsPerSource && w.written < this.options.eventsPerTenant) {
      source.written++;
      w.written++;
      this.write(failure.tenantId, {
        type: 'authentication.failed',
        principalId: failure.claimedPrincipal === null ? null : cut(failure.claimedPrincipal),
        correlationId: failure.correlationId,
        traceId: failure.traceId,
        details: {
          method: failure.method,
          reason: cut(failure.reason, 100),
          source: cut(failure.source, 100),
          ...Object.fromEntries(Object.entries(failure.details ?? {}).map(([k, v]) => [k, cut(v, 512)])),
        },
      });
      return;
    }
    source.suppressed++;
    w.suppressed++;
    const reason = `${failure.method}:${cut(failure.reason, 100)}`;
    w.reasons.set(reason, (w.reasons.get(reason) ?? 0) + 1);
  }

  /** Counts a successful authentication of a service (summarised per window, never written one by one). */
  succeeded(tenantId: string, method: AuthenticationMethod, principal: string): void {
    const w = this.windowOf(tenantId);
    const key = `${method}:${cut(principal)}`;
    if (w.successes.has(key) || w.successes.size < this.options.maxTrackedSources)
      w.successes.set(key, (w.successes.get(key) ?? 0) + 1);
    else w.successes.set(`${method}:${OTHER_SOURCES}`, (w.successes.get(`${method}:${OTHER_SOURCES}`) ?? 0) + 1);
  }

  /**
   * Ends every open window: writes its summaries and waits for every event written so far. Runs on a timer every
   * `windowMs`; tests and shutdown call it directly.
   */
  async flush(): Promise<void> {
    const ended = this.windows;
    this.windows = new Map();
    const endedAt = this.platform.clock.now().toISOString();
    for (const [tenantId, w] of ended) {
      const window = { windowStart: w.startedAt.toISOString(), windowEnd: endedAt };
      if (w.suppressed > 0) {
        const sources = [...w.sources.entries()]
          .filter(([, c]) => c.suppressed > 0)
          .sort((a, b) => b[1].suppressed - a[1].suppressed)
          .slice(0, this.options.summarySources);
        this.write(tenantId, {
          type: 'authentication.failed',
          principalId: null,
          details: {
            summary: true,
            suppressed: w.suppressed,
            written: w.written,
            ...window,
            reasons: Object.fromEntries(w.reasons),
            sources: Object.fromEntries(sources.map(([s, c]) => [s, c.suppressed])),
          },
        });
      }
      if (w.successes.size > 0) {
        const counts = [...w.successes.entries()].sort((a, b) => b[1] - a[1]);
        this.write(tenantId, {
          type: 'authentication.succeeded',
          principalId: null,
          result: 'success',
          details: {
            summary: true,
            total: counts.reduce((n, [, c]) => n + c, 0),
            ...window,
            principals: Object.fromEntries(counts.slice(0, 100)),
          },
        });
      }
    }
    await Promise.allSettled([...this.pending]);
  }

  /** Flushes every `windowMs` (an unref'd timer: it never keeps the process alive). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.options.windowMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private windowOf(tenantId: string): TenantWindow {
    let w = this.windows.get(tenantId);
    if (!w) {
      this.start();
      w = {
        startedAt: this.platform.clock.now(),
        written: 0,
        suppressed: 0,
        sources: new Map(),
        reasons: new Map(),
        successes: new Map(),
      };
      this.windows.set(tenantId, w);
    }
    return w;
  }

  /** Appends without making anyone wait; a failed append is logged, never thrown at the request. */
  private write(
    tenantId: string,
    event: {
      type: string;
      principalId: string | null;
      result?: 'success' | 'failure';
      correlationId?: string | undefined;
      traceId?: string | undefined;
      details: Record<string, unknown>;
    },
  ): void {
    const p = this.platform.audit
      .append({ tenantId, result: 'failure', ...event })
      .catch((cause: unknown) =>
        this.platform.logger.warn({ err: cause, tenant_id: tenantId }, 'authentication event not recorded'),
      );
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }
}

const services = new WeakMap<Platform, AuthenticationEvents>();

/** The process's authentication event recorder of a platform (one per platform; options count on the first call). */
export function authenticationEvents(
  platform: Platform,
  options: Partial<AuthenticationEventOptions> = {},
): AuthenticationEvents {
  let s = services.get(platform);
  if (!s) {
    s = new AuthenticationEvents(platform, options);
    services.set(platform, s);
  }
  return s;
}

/**
 * The tenant a refusal outside any resolved tenant belongs to: the request's host, else the default tenant (never a
 * tenant the unverified credential names, which would let anyone write into any chain). Undefined when neither.
 */
export function refusalTenant(platform: Platform, host: string | undefined): string | undefined {
  try {
    return resolveTenant(platform.tenants, {
      principal: null,
      host,
      defaultTenant: platform.config.tenancy.defaultTenant,
    });
  } catch {
    return undefined;
  }
}

/** What kind of refusal a bearer token met, from the authenticator's error (no secret, no token text). */
function bearerReason(error: unknown): string | null {
  if (error instanceof IssuerTrustError) return `issuer_${error.violation}_not_trusted`;
  if (!isAppError(error) || error.code !== 'invalid_token') return null;
  const m = error.message;
  if (m.includes('expired')) return 'expired';
  if (m.includes('malformed')) return 'malformed';
  if (m.includes('algorithm')) return 'algorithm_not_accepted';
  if (m.includes('key id')) return 'key_not_accepted';
  if (m.includes('issuer is not trusted')) return 'issuer_not_trusted';
  return 'invalid';
}

/** The subject and issuer a token claims, read without verification (for the event only). */
function claimed(token: string): { sub: string | null; iss: string | null } {
  try {
    const payload = decodeJwt(token);
    return {
      sub: typeof payload.sub === 'string' ? payload.sub : null,
      iss: typeof payload.iss === 'string' ? payload.iss : null,
    };
  } catch {
    return { sub: null, iss: null };
  }
}

/**
 * A refused bearer token (001 §6; issue 13 §1, issue 15 item 3) is an authentication event of the tenant the request
 * reached (its host, else the default), with the reason kind, the claimed principal and issuer; never the token.
 * Rate-limited per source (AuthenticationEvents). An unavailable key set is not a refusal of the caller and is not
 * recorded.
 */
export function recordTrustRefusal(
  platform: Platform,
  state: RequestState,
  host: string | undefined,
  error: unknown,
  source = 'unknown',
  token?: string,
): void {
  const reason = bearerReason(error);
  if (reason === null) return;
  const tenantId = refusalTenant(platform, host);
  if (tenantId === undefined) return;
  const trust = error instanceof IssuerTrustError ? error : null;
  const claim = token === undefined ? { sub: null, iss: null } : claimed(token);
  const issuer = trust?.issuer ?? claim.iss;
  authenticationEvents(platform).failed({
    tenantId,
    method: 'bearer_token',
    reason,
    claimedPrincipal: trust?.claimedPrincipal ?? claim.sub,
    source,
    correlationId: state.correlationId,
    traceId: state.trace.traceId,
    details: {
      ...(issuer ? { issuer } : {}),
      ...(state.route ? { endpoint: state.route } : {}),
    },
  });
}

/**
 * Records a refusal seen by a route (a DPoP proof, a capability token): the request gives the source, the
 * correlation and the tenant (its resolved tenant, else its host's or the default).
 */
export function recordAuthenticationFailure(
  platform: Platform,
  request: { ip: string; hostname: string; state: RequestState },
  failure: { method: AuthenticationMethod; reason: string; claimedPrincipal: string | null },
): void {
  const state = request.state;
  const tenantId =
    state.tenantId ?? refusalTenant(platform, platform.tenants.hasHostMappings ? request.hostname : undefined);
  if (tenantId === undefined) return;
  authenticationEvents(platform).failed({
    tenantId,
    ...failure,
    source: request.ip,
    correlationId: state.correlationId,
    traceId: state.trace.traceId,
    ...(state.route ? { details: { endpoint: state.route } } : {}),
  });
}
