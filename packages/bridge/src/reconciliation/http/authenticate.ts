import { isAppError, resolveTenant, type FastifyRequest, type Principal } from '@tessera/platform';
import { DEFAULT_DPOP_ALGS, DpopError, dpopChallenge, verifyDpopProof } from '@tessera/pkce-dpop';
import type { JWTPayload } from 'jose';
import { insufficientScope, invalidToken } from '../domain/errors.js';
import type { ReconciliationClientConfig } from '../config.js';
import { projectionOf, type Projection } from '../domain/projection.js';
import type { ReconciliationServices } from '../services.js';

/**
 * Authentication of the external reconciliation API (000 §5, §7; RFC 6750; RFC 9449), as a route-level onRequest
 * hook (the routes opt out of the platform's bearer step, which holds tokens to the platform audiences):
 *
 * - `Authorization: Bearer <JWT>` or `Authorization: DPoP <JWT>` with a `DPoP` proof; the JWT of a configured issuer
 *   (platform `auth.issuers`) for this API's audience. Missing, malformed, expired, badly signed → 401 invalid_token.
 * - A DPoP-bound token (`cnf`) presented as Bearer → 401 (RFC 9449 §7.2). Under DPoP the proof must verify for this
 *   request (htm, htu, ath, the token's cnf.jkt, a fresh jti) → else 401, `WWW-Authenticate: DPoP error=...`.
 * - The tenant is resolved from the token (else the host, else the default), never from a header or body.
 * - The client (azp, else client_id) must be configured (000 §2.7) and hold the route's scope both in its token
 *   and in its configuration → else 403 insufficient_scope, audited as `authorization.denied`.
 *
 * The principal the commands see keeps the intersection of scopes and no roles: on this API a client is authorized
 * by its scopes and projection only.
 */
export interface Caller {
  projection: Projection;
  scheme: 'Bearer' | 'DPoP';
}

const callers = new WeakMap<FastifyRequest, Caller>();

export function callerOf(request: FastifyRequest): Caller {
  const caller = callers.get(request);
  if (!caller) throw new Error('the reconciliation caller is read before authentication');
  return caller;
}

export const rateLimitKey = (request: FastifyRequest): string | undefined => callers.get(request)?.projection.clientId;

const ALGS = { algs: DEFAULT_DPOP_ALGS };

/** Each configured client's projection, built once (its sets serve every request of the client). */
const projections = new WeakMap<ReconciliationClientConfig, Projection>();

function projectionFor(clientId: string, client: ReconciliationClientConfig): Projection {
  let projection = projections.get(client);
  if (!projection || projection.clientId !== clientId)
    projections.set(client, (projection = projectionOf(clientId, client)));
  return projection;
}
const TOKEN = /^[A-Za-z0-9._~+/-]+=*$/;

export function authenticateReconciliation(s: ReconciliationServices, route: { commandId: string; scope: string }) {
  // The realm is the configured audience, kept to the characters a quoted-string may hold unescaped.
  const realm = s.config.audience.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '');
  const bearerChallenge = (error?: string, description?: string) =>
    error ? `Bearer realm="${realm}", error="${error}", error_description="${description}"` : `Bearer realm="${realm}"`;
  const challengeFor = (scheme: 'Bearer' | 'DPoP', code: string, description: string) =>
    scheme === 'DPoP' ? dpopChallenge({ code, description }, ALGS) : bearerChallenge(code, description);

  return async function authenticate(request: FastifyRequest): Promise<void> {
    const { scheme, token } = readAuthorization(request.headers.authorization);
    if (scheme === null) {
      const challenges = [bearerChallenge(), ...(s.config.dpop.enabled ? [dpopChallenge(null, ALGS)] : [])];
      throw invalidToken('An access token is required.', challenges.join(', '));
    }
    if (scheme === 'DPoP' && !s.config.dpop.enabled) {
      throw invalidToken('The DPoP scheme is not accepted.', bearerChallenge('invalid_token', 'DPoP is not accepted'));
    }
    if (!token)
      throw invalidToken('The access token is malformed.', challengeFor(scheme, 'invalid_token', 'malformed token'));

    let principal: Principal;
    let payload: JWTPayload;
    try {
      ({ principal, payload } = await s.authenticator.authenticate(token));
    } catch (error) {
      if (isAppError(error) && error.code === 'invalid_token')
        throw invalidToken(error.message, challengeFor(scheme, 'invalid_token', 'the access token is not valid'));
      throw error;
    }

    const cnf = payload.cnf as { jkt?: unknown } | undefined;
    if (scheme === 'Bearer' && cnf !== undefined) {
      // RFC 9449 §7.2: a sender-constrained token loses its protection if accepted as a bearer token.
      throw invalidToken(
        'A DPoP-bound access token must be presented with the DPoP scheme.',
        dpopChallenge({ code: 'invalid_token', description: 'the access token is DPoP-bound' }, ALGS),
      );
    }
    const clientId = principal.clientId;
    const configured =
      clientId !== null && Object.hasOwn(s.config.clients, clientId) ? s.config.clients[clientId]! : null;
    const state = request.state;
    state.tenantId = resolveTenant(s.platform.tenants, {
      principal,
      host: request.hostname || undefined,
      defaultTenant: s.platform.config.tenancy.defaultTenant,
    });
    // The proof's jti is remembered within the tenant the token is for (RFC 9449 §11.1).
    if (scheme === 'DPoP')
      await checkProof(s, request, state.tenantId, token, typeof cnf?.jkt === 'string' ? cnf.jkt : null);

    // A client is its id *from its issuer, in its tenant* (issue 13 §1): the same azp minted by another trusted
    // issuer, or used in another tenant, is not this client.
    const client =
      configured &&
      (configured.issuer === undefined || configured.issuer === principal.issuer) &&
      (configured.tenant ?? s.platform.config.tenancy.defaultTenant) === state.tenantId
        ? configured
        : null;
    const scopes = client ? principal.scopes.filter((scope) => client.scopes.includes(scope)) : [];
    state.principal = { ...principal, roles: [], scopes };

    if (!client || !scopes.includes(route.scope)) {
      const reason = client ? 'missing_scope' : 'client_not_configured';
      await s.platform.audit.append({
        tenantId: state.tenantId,
        type: 'authorization.denied',
        commandId: route.commandId,
        principalId: principal.id,
        result: 'denied',
        correlationId: state.correlationId,
        traceId: state.trace.traceId,
        details: { reason, client_id: clientId === null ? null : clientId.slice(0, 256) },
        occurredAt: s.clock.now(),
      });
      const message = client
        ? 'The token lacks the scope this action needs.'
        : 'The client is not configured for this API.';
      throw insufficientScope(
        message,
        `${challengeFor(scheme, 'insufficient_scope', message)}, scope="${route.scope}"`,
      );
    }
    callers.set(request, { projection: projectionFor(clientId!, client), scheme });
  };
}

function readAuthorization(header: string | undefined): { scheme: 'Bearer' | 'DPoP' | null; token: string | null } {
  if (typeof header !== 'string') return { scheme: null, token: null };
  const match = /^(Bearer|DPoP)(?: +(\S*))?\s*$/i.exec(header);
  if (!match) return { scheme: null, token: null };
  const scheme = match[1]!.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer';
  const token = match[2] && TOKEN.test(match[2]) ? match[2] : null;
  return { scheme, token };
}

/** RFC 9449 §4.3 and §7.1: the proof of this request, for this token, by the key the token is bound to. */
async function checkProof(
  s: ReconciliationServices,
  request: FastifyRequest,
  tenantId: string,
  token: string,
  jkt: string | null,
): Promise<void> {
  if (jkt === null) {
    throw invalidToken(
      'The access token is not DPoP-bound.',
      dpopChallenge({ code: 'invalid_token', description: 'the access token is not DPoP-bound' }, ALGS),
    );
  }
  try {
    await verifyDpopProof({
      dpopProof: request.headers.dpop,
      httpMethod: request.method,
      httpUrl: `${s.dpopBaseUrl}${request.url}`,
      accessToken: token,
      expectedJwkThumbprint: jkt,
      replayStore: s.replay.forTenant(tenantId),
      now: s.clock.now(),
      iatWindowSeconds: s.config.dpop.iatWindowSeconds,
    });
  } catch (error) {
    if (error instanceof DpopError) {
      // 000 §7: every 401 of the API is invalid_token in the body; the challenge names the DPoP error.
      throw invalidToken('The DPoP proof is not valid for this request.', dpopChallenge(error, ALGS));
    }
    // The replay store fails closed itself (503 when it cannot record the jti).
    throw error;
  }
}
