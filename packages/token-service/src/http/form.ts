import type { FastifyRequest } from 'fastify';
import { oauthError } from '../domain/oauth-error.js';

/**
 * Form parameters of a POST to the authorization endpoint (OIDC Core §3.1.2.1). A parameter sent more than once is an
 * invalid_request (RFC 6749 §3.1: parameters MUST NOT be included more than once). The token, introspection and
 * revocation endpoints declare their forms as body schemas instead (form-body.ts, token-schemas.ts).
 */
export function formParams(request: FastifyRequest): Record<string, string> {
  const body = request.body;
  if (body === undefined || body === null) return {};
  // RFC 6749 §3.2, §4.1.3 and RFC 7662 §2.1: these endpoints take application/x-www-form-urlencoded only.
  const type = String(request.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw oauthError('invalid_request', 'The body must be application/x-www-form-urlencoded.');
  }
  if (typeof body !== 'object' || Array.isArray(body))
    throw oauthError('invalid_request', 'The body must be application/x-www-form-urlencoded.');
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (Array.isArray(v)) throw oauthError('invalid_request', `${k} is repeated.`);
    if (typeof v === 'string') out[k] = v;
  }
  return out;
}

/** Security headers of every token response (RFC 6749 §5.1). */
export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };
