import {
  AppError,
  authenticationEvents,
  type CommandContext,
  type Platform,
  type RateLimitDecision,
} from '@tessera/platform';

/** Where a client-authenticating request came from: the key of its failed-authentication limit, and its route. */
export interface RequestSource {
  /** The peer's address (as the role app's `trustProxy` setting derives it). */
  address: string;
  /** The route template, recorded with a failed authentication. */
  endpoint: string | undefined;
}

/**
 * Rate limits of the client-authenticating endpoints (`/token`, `/introspect`, `/revoke`; issue 13 §2). A client id
 * that anyone can type is no key for a limit that a flood could exhaust, so:
 * - failed authentications count per **source address**, and an address over its limit is refused before any
 *   secret is checked (a brute force from one address stops there);
 * - failed authentications also count per **claimed client id**, with a higher limit, so that a client under a
 *   spread-out guessing attack is locked for the rest of the window, while one address alone cannot lock it out;
 * - successful requests count per **authenticated client**, at the platform's ordinary request limit.
 * Counters are the platform's rate limiter (in process, or Redis across replicas); windows as `rateLimit.windowSeconds`.
 */
export class ClientAuthenticationGuard {
  constructor(
    private readonly platform: Platform,
    private readonly role: string,
  ) {}

  private get limits() {
    return this.platform.config.rateLimit;
  }

  private key(kind: string, tenantId: string, value: string): string {
    return `${this.role}:${tenantId}:${kind}:${value.slice(0, 200)}`;
  }

  /**
   * Refuses an address, or a claimed client, that is over its failed-authentication limit. Every token request
   * passes here. With a limiter that keeps its counters in this process (peekNow) the check is made at once and
   * nothing is returned, so the request waits on no promise for it; a shared limiter's answers (Redis, replicas) are
   * awaited through the returned promise.
   */
  before(source: RequestSource, tenantId: string, claimedClientId: string | undefined): Promise<void> | undefined {
    if (!this.limits.enabled) return undefined;
    const { windowSeconds, failedAuthenticationsPerAddress, failedAuthenticationsPerClient } = this.limits;
    const addressKey = this.key('auth-failed-ip', tenantId, source.address);
    const clientKey = claimedClientId === undefined ? null : this.key('auth-failed-client', tenantId, claimedClientId);
    const limiter = this.platform.rateLimiter;
    if (limiter.peekNow) {
      refuseIfOver(limiter.peekNow(addressKey, failedAuthenticationsPerAddress, windowSeconds));
      if (clientKey !== null) refuseIfOver(limiter.peekNow(clientKey, failedAuthenticationsPerClient, windowSeconds));
      return undefined;
    }
    // Both counters asked at once: one wait on the shared limiter instead of two in a row. The address decides first.
    return Promise.all([
      limiter.peek(addressKey, failedAuthenticationsPerAddress, windowSeconds),
      clientKey === null ? null : limiter.peek(clientKey, failedAuthenticationsPerClient, windowSeconds),
    ]).then(([byAddress, byClient]) => {
      refuseIfOver(byAddress);
      if (byClient !== null) refuseIfOver(byClient);
    });
  }

  /**
   * Counts a failed authentication against the address and the claimed client id, and records it as an
   * authentication event (rate-limited per source; the claimed client id, never the secret).
   */
  async failed(
    cmd: CommandContext,
    source: RequestSource,
    tenantId: string,
    claimedClientId: string | undefined,
  ): Promise<void> {
    authenticationEvents(this.platform).failed({
      tenantId,
      method: 'client_authentication',
      reason: 'invalid_client',
      claimedPrincipal: claimedClientId ?? null,
      source: source.address,
      correlationId: cmd.correlationId,
      traceId: cmd.trace?.traceId,
      ...(source.endpoint ? { details: { endpoint: source.endpoint } } : {}),
    });
    if (!this.limits.enabled) return;
    const { windowSeconds, failedAuthenticationsPerAddress, failedAuthenticationsPerClient } = this.limits;
    const limiter = this.platform.rateLimiter;
    await limiter.consume(
      this.key('auth-failed-ip', tenantId, source.address),
      failedAuthenticationsPerAddress,
      windowSeconds,
    );
    if (claimedClientId !== undefined)
      await limiter.consume(
        this.key('auth-failed-client', tenantId, claimedClientId),
        failedAuthenticationsPerClient,
        windowSeconds,
      );
  }

  /**
   * Counts a request of an authenticated client; over the ordinary limit it is refused. As `before`: at once with an
   * in-process limiter, else through the returned promise.
   */
  succeeded(tenantId: string, clientId: string): Promise<void> | undefined {
    // Summarised per window (one authentication.succeeded event per tenant), never an event per request.
    authenticationEvents(this.platform).succeeded(tenantId, 'client_authentication', clientId);
    if (!this.limits.enabled) return undefined;
    const limiter = this.platform.rateLimiter;
    const key = this.key('client', tenantId, clientId);
    const { requestsPerWindow, windowSeconds } = this.limits;
    if (limiter.consumeNow) {
      refuseIfOver(limiter.consumeNow(key, requestsPerWindow, windowSeconds));
      return undefined;
    }
    return limiter.consume(key, requestsPerWindow, windowSeconds).then(refuseIfOver);
  }
}

function refuseIfOver(decision: RateLimitDecision): void {
  if (!decision.allowed)
    throw new AppError('rate_limited', 'Too many requests; retry later.', {
      headers: { 'retry-after': String(decision.retryAfterSeconds) },
    });
}

/** The client id a request claims (Basic user name, else the form's client_id), before any check. */
export function claimedClientId(
  authorization: string | undefined,
  form: Readonly<Record<string, unknown>>,
): string | undefined {
  if (authorization && /^basic /i.test(authorization)) {
    const raw = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
    const colon = raw.indexOf(':');
    return colon > 0 ? raw.slice(0, colon) : undefined;
  }
  return typeof form.client_id === 'string' ? form.client_id : undefined;
}
