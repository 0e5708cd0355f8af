import type { AuthorizationParams } from '../domain/authorization-params.js';

/**
 * One sign-in at the portal: the relying party's request and the presentation session that serves it. Its id is the
 * `oauthSessionId` the bridge correlates with (000 §4.1). It lives in a signed cookie, not in the process, so that any
 * replica can answer the next request of the browser.
 */
export interface LoginTransaction {
  id: string;
  tenantId: string;
  sessionId: string;
  /** The relying party's parameters, checked by the token service (flows.md step 2). */
  params: AuthorizationParams;
  /** Epoch seconds. */
  createdAt: number;
  expiresAt: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Reads a decoded cookie payload; anything not shaped exactly like a transaction is no transaction. */
export function parseTransaction(value: unknown): LoginTransaction | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  const params = v.params;
  if (typeof v.id !== 'string' || !UUID.test(v.id)) return null;
  if (typeof v.sessionId !== 'string' || !UUID.test(v.sessionId)) return null;
  if (typeof v.tenantId !== 'string' || typeof v.createdAt !== 'number' || typeof v.expiresAt !== 'number') return null;
  if (!params || typeof params !== 'object' || Object.values(params).some((p) => typeof p !== 'string')) return null;
  return {
    id: v.id,
    tenantId: v.tenantId,
    sessionId: v.sessionId,
    params: params as AuthorizationParams,
    createdAt: v.createdAt,
    expiresAt: v.expiresAt,
  };
}
