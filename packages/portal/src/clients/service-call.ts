import type { PortalOptions } from '../options.js';
import { callJson, type JsonResponse } from './http.js';
import type { ServiceTokenSource } from './service-token.js';

/** Who a service call is made for: the tenant of the portal request and its correlation id (for joined logs). */
export interface CallContext {
  tenantId: string;
  correlationId: string;
}

/**
 * A call with the portal's bearer token (000 §5: the session, IDV and check endpoints are service to service). A 401
 * means the token went stale (a rotated key, a restarted issuer): it is dropped and the call made once more.
 */
export async function authorizedCall(
  options: PortalOptions,
  tokens: ServiceTokenSource,
  ctx: CallContext,
  service: string,
  url: string,
  init: { method: 'GET' | 'POST'; json?: unknown },
): Promise<JsonResponse> {
  for (let attempt = 0; ; attempt++) {
    const token = await tokens.token(ctx.tenantId, ctx.correlationId);
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    const res = await callJson(
      url,
      { method: init.method, headers, ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}) },
      { fetch: options.fetch, timeoutSeconds: options.fetchTimeoutSeconds, service, correlationId: ctx.correlationId },
    );
    if (res.status !== 401 || attempt > 0) return res;
    tokens.invalidate(token);
  }
}
