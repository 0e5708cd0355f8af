import { AppError } from '@tessera/platform';
import type { PortalOptions } from '../options.js';
import { str, type JsonResponse } from './http.js';
import { authorizedCall, type CallContext } from './service-call.js';
import type { ServiceTokenSource } from './service-token.js';

export interface CreatedSession {
  sessionId: string;
  qrCodeDataUri: string;
  requestUri: string;
}

export interface SessionStatusView {
  status: string;
  idvRequired: boolean;
  /** Extension of the bridge: the failed check when the status is ERROR. */
  failureCheck: string | null;
  /** The check of the last response the bridge refused while the session stayed open (bridge `lastRejection`). */
  lastRejectionCheck: string | null;
  /** At MATCH_CONFIRMATION_REQUIRED: the candidates (bridge README "Match confirmation"), else []. */
  matchCandidates: MatchCandidate[];
}

/** One account the holder may confirm: an opaque id and masked values only (bridge `matchCandidates`). */
export interface MatchCandidate {
  matchId: string;
  /** Claim name → masked value. */
  claims: Record<string, string>;
  institution: string | null;
}

/** The bridge's answer to the holder's choice (idv/submit): COMPLETED, or ERROR (declined: IDV next). */
export type MatchAnswer = { kind: 'answered'; reconciliationStatus: string } | { kind: 'refused' };

/** What the bridge says about a session id: 404 session_not_found, 410 session_expired, 409 invalid_session_state (000 §7). */
export type Lookup<T> =
  { kind: 'ok'; value: T } | { kind: 'expired' } | { kind: 'not_found' } | { kind: 'invalid_state' };

export type Completion = { kind: 'completed' } | { kind: 'idv_required' } | { kind: 'confirm_match' };

export interface IdvInitiation {
  authorizationUrl: string;
}

export interface IdvStatus {
  reconciliationStatus: string;
  errorMessage: string | null;
}

const path = (sessionId: string, rest = '') => `/auth/oid4vp/sessions/${encodeURIComponent(sessionId)}${rest}`;

/** The answers every session endpoint shares (000 §4.1, §7): 404, 409, 410. */
function lookup<T>(res: JsonResponse, ok: (res: JsonResponse) => T | null): Lookup<T> {
  if (res.status === 404) return { kind: 'not_found' };
  if (res.status === 410) return { kind: 'expired' };
  if (res.status === 409) return { kind: 'invalid_state' };
  const value = res.status === 200 || res.status === 202 ? ok(res) : null;
  if (value === null)
    throw new AppError(
      'service_unavailable',
      `The bridge answered ${res.status} (${str(res.body.error) ?? 'no error code'}).`,
    );
  return { kind: 'ok', value };
}

/**
 * The bridge's session API (000 §4.1) and IDV API (000 §4.2), as the portal backend calls them. Only what the portal
 * needs is read from each answer: the completion's claims are not kept, they reach the relying party through the
 * token service (flows.md step 7).
 */
export class BridgeClient {
  constructor(
    private readonly options: PortalOptions,
    private readonly tokens: ServiceTokenSource,
  ) {}

  private call(ctx: CallContext, url: string, init: { method: 'GET' | 'POST'; json?: unknown }) {
    return authorizedCall(this.options, this.tokens, ctx, 'bridge', `${this.options.bridgeUrl}${url}`, init);
  }

  /** POST /auth/oid4vp/sessions, bound to the authorization request by the bridge's clientId/codeChallenge extension. */
  async createSession(
    ctx: CallContext,
    input: { oauthSessionId: string; clientId: string; codeChallenge: string },
  ): Promise<CreatedSession> {
    const res = await this.call(ctx, '/auth/oid4vp/sessions', {
      method: 'POST',
      json: { queryId: this.options.queryId, ...input },
    });
    const sessionId = str(res.body.sessionId);
    const qrCodeDataUri = str(res.body.qrCodeDataUri);
    const requestUri = str(res.body.requestUri);
    if (res.status !== 200 || !sessionId || !qrCodeDataUri?.startsWith('data:image/png;base64,') || !requestUri) {
      throw new AppError(
        'service_unavailable',
        `The bridge did not create a session (${res.status} ${str(res.body.error) ?? ''}).`,
      );
    }
    return { sessionId, qrCodeDataUri, requestUri };
  }

  async status(ctx: CallContext, sessionId: string): Promise<Lookup<SessionStatusView>> {
    return lookup(await this.call(ctx, path(sessionId, '/status'), { method: 'GET' }), ({ body }) => {
      const status = str(body.status);
      if (!status) return null;
      const failure =
        body.failure && typeof body.failure === 'object' ? str((body.failure as Record<string, unknown>).check) : null;
      const rejection =
        body.lastRejection && typeof body.lastRejection === 'object'
          ? str((body.lastRejection as Record<string, unknown>).check)
          : null;
      return {
        status,
        idvRequired: body.idvRequired === true,
        failureCheck: failure,
        lastRejectionCheck: rejection,
        matchCandidates: candidatesOf(body.matchCandidates),
      };
    });
  }

  /**
   * POST .../complete: 200 known holder, 202 identity verification first (000 §2.3), or, with the bridge's
   * `matchConfirmationRequired`, the holder's confirmation of a matching account first.
   */
  async complete(ctx: CallContext, sessionId: string): Promise<Lookup<Completion>> {
    return lookup(await this.call(ctx, path(sessionId, '/complete'), { method: 'POST' }), ({ status, body }) => {
      if (status === 200) return { kind: 'completed' };
      return body.matchConfirmationRequired === true ? { kind: 'confirm_match' } : { kind: 'idv_required' };
    });
  }

  /**
   * POST .../idv/submit (000 §4.2) as the answer to a match confirmation: `{confirmed: true, selectedMatchId}` or
   * `{confirmed: false}`. 400 (an id that is not one of the session's candidates) is `refused`.
   */
  async submitMatch(
    ctx: CallContext,
    sessionId: string,
    answer: { confirmed: true; selectedMatchId: string } | { confirmed: false },
  ): Promise<Lookup<MatchAnswer>> {
    const res = await this.call(ctx, path(sessionId, '/idv/submit'), { method: 'POST', json: answer });
    if (res.status === 400) return { kind: 'ok', value: { kind: 'refused' } };
    return lookup(res, ({ status, body }) => {
      const reconciliationStatus = str(body.reconciliationStatus);
      return status === 200 && reconciliationStatus ? { kind: 'answered', reconciliationStatus } : null;
    });
  }

  /** POST .../idv/initiate (000 §4.2): the institutional login the browser is sent to. */
  async initiateIdv(ctx: CallContext, sessionId: string): Promise<Lookup<IdvInitiation>> {
    return lookup(await this.call(ctx, path(sessionId, '/idv/initiate'), { method: 'POST' }), ({ status, body }) => {
      const authorizationUrl = str(body.authorizationUrl);
      return status === 200 && authorizationUrl && /^https?:\/\//.test(authorizationUrl) ? { authorizationUrl } : null;
    });
  }

  /** GET .../idv/status (000 §4.2): reconciliationStatus and errorMessage. */
  async idvStatus(ctx: CallContext, sessionId: string): Promise<Lookup<IdvStatus>> {
    return lookup(await this.call(ctx, path(sessionId, '/idv/status'), { method: 'GET' }), ({ status, body }) => {
      const reconciliationStatus = str(body.reconciliationStatus);
      return status === 200 && reconciliationStatus
        ? { reconciliationStatus, errorMessage: str(body.errorMessage) }
        : null;
    });
  }
}

/** The bridge's candidates, read defensively: anything malformed is left out (it is then simply not offered). */
function candidatesOf(value: unknown): MatchCandidate[] {
  if (!Array.isArray(value)) return [];
  const out: MatchCandidate[] = [];
  for (const item of value.slice(0, 10)) {
    if (!item || typeof item !== 'object') continue;
    const c = item as Record<string, unknown>;
    const matchId = str(c.matchId);
    if (!matchId || !/^[\x21-\x7e]{1,128}$/.test(matchId)) continue;
    const claims: Record<string, string> = {};
    if (c.claims && typeof c.claims === 'object')
      for (const [name, masked] of Object.entries(c.claims as Record<string, unknown>))
        if (typeof masked === 'string') claims[name] = masked;
    out.push({ matchId, claims, institution: str(c.institution) });
  }
  return out;
}
