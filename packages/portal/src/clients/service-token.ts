import { decodeJwt } from 'jose';
import { AppError } from '@tessera/platform';
import type { PortalOptions } from '../options.js';
import { callJson, str } from './http.js';

interface Cached {
  token: string;
  /** Epoch ms after which a fresh token is fetched. */
  refreshAt: number;
  tenantId: string | null;
}

/** Seconds before expiry at which a cached token is replaced, so that a token never expires in flight. */
const MARGIN_SECONDS = 30;

/** client_secret_basic: id and secret are form-encoded before base64 (RFC 6749 §2.3.1). */
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

function tenantClaim(token: string): string | null {
  try {
    return str(decodeJwt(token).tenant_id);
  } catch {
    return null;
  }
}

/**
 * The portal's bearer token for the bridge and the token service: a client_credentials grant at the token service
 * (RFC 6749 §4.4), cached until shortly before it expires. Concurrent requests share one token request.
 */
export class ServiceTokenSource {
  private cached: Cached | null = null;
  private pending: Promise<Cached> | null = null;

  constructor(private readonly options: PortalOptions) {}

  /** A token for calls made on behalf of `tenantId`: a token of another tenant is never presented. */
  async token(tenantId: string, correlationId?: string): Promise<string> {
    const now = this.options.clock.now().getTime();
    let current = this.cached && this.cached.refreshAt > now ? this.cached : null;
    if (!current) {
      this.pending ??= this.fetchToken(correlationId).finally(() => (this.pending = null));
      current = await this.pending;
    }
    if (current.tenantId !== null && current.tenantId !== tenantId) {
      throw new AppError(
        'service_unavailable',
        'The portal service client belongs to another tenant than this portal host.',
      );
    }
    return current.token;
  }

  /** Drops a token a service refused (a rotated signing key, a revoked client), so that the next call gets a new one. */
  invalidate(token: string): void {
    if (this.cached?.token === token) this.cached = null;
  }

  private async fetchToken(correlationId?: string): Promise<Cached> {
    const { tokenServiceUrl, serviceCredentials: c } = this.options;
    const res = await callJson(
      `${tokenServiceUrl}/token`,
      {
        method: 'POST',
        headers: {
          authorization: basic(c.clientId, c.clientSecret),
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: c.scope }).toString(),
      },
      {
        fetch: this.options.fetch,
        timeoutSeconds: this.options.fetchTimeoutSeconds,
        service: 'token service',
        correlationId,
      },
    );
    const token = str(res.body.access_token);
    if (res.status !== 200 || !token) {
      // The error code names the misconfiguration (invalid_client, invalid_scope); the secret is never echoed.
      throw new AppError(
        'service_unavailable',
        `The token service refused the portal's service client (${str(res.body.error) ?? res.status}).`,
      );
    }
    const expiresIn = typeof res.body.expires_in === 'number' && res.body.expires_in > 0 ? res.body.expires_in : 60;
    const margin = Math.min(MARGIN_SECONDS, expiresIn / 2);
    const cached = {
      token,
      refreshAt: this.options.clock.now().getTime() + (expiresIn - margin) * 1000,
      tenantId: tenantClaim(token),
    };
    this.cached = cached;
    return cached;
  }
}
