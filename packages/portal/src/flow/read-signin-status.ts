import type { CallContext } from '../clients/service-call.js';
import { authorizeUrl } from '../domain/authorization-params.js';
import { failureMessage, openPhaseState, phaseOf, type PageState } from '../domain/signin-state.js';
import type { MessageKey } from '../i18n/en.js';
import type { LoginTransaction } from '../transaction/login-transaction.js';
import type { PortalRuntime } from './runtime.js';

/** One answer to the page's script. `next` makes the page navigate; `final` ends the polling. */
export interface StatusAnswer {
  state: PageState;
  reason?: MessageKey;
  next?: string;
  final: boolean;
}

export const VERIFY_IDENTITY_PATH = '/signin/verify-identity';
export const CONFIRM_MATCH_PATH = '/signin/confirm-account';

export const LOST: StatusAnswer = { state: 'lost', final: true };
export const EXPIRED: StatusAnswer = { state: 'expired', final: true };

/**
 * flows.md steps 5-6: once the session is VERIFIED the portal backend calls complete. 200: the browser goes to the
 * token service's /authorize with the relying party's parameters and the wallet login hint. 202: identity
 * verification first (5'), or the confirmation of a matching account (bridge README "Match confirmation").
 */
export async function completeSignin(rt: PortalRuntime, ctx: CallContext, tx: LoginTransaction): Promise<StatusAnswer> {
  const done = await rt.bridge.complete(ctx, tx.sessionId);
  if (done.kind === 'expired' || done.kind === 'not_found') return EXPIRED;
  // 409: another request is moving the session right now; the next poll sees where it went.
  if (done.kind === 'invalid_state') return { state: 'checking', final: false };
  if (done.value.kind === 'idv_required') return { state: 'idv', next: VERIFY_IDENTITY_PATH, final: false };
  if (done.value.kind === 'confirm_match') return { state: 'confirm', next: CONFIRM_MATCH_PATH, final: false };
  return {
    state: 'verified',
    next: authorizeUrl(rt.options.tokenServicePublicUrl, tx.params, tx.sessionId),
    final: false,
  };
}

/**
 * GET /api/signin/status: the session status (000 §4.1) in the page's terms. The page names its transaction, so that
 * a page whose sign-in was started again in another tab stops instead of following someone else's session.
 */
export async function readSigninStatus(
  rt: PortalRuntime,
  ctx: CallContext,
  tx: LoginTransaction | null,
  pageTx: string | undefined,
): Promise<StatusAnswer> {
  if (!tx || tx.id !== pageTx) return LOST;
  const status = await rt.bridge.status(ctx, tx.sessionId);
  // A session the bridge no longer knows was removed after its expiry (000 §8 cleanup): for the user, it expired.
  if (status.kind !== 'ok') return EXPIRED;
  const phase = phaseOf(status.value.status);
  switch (phase) {
    case 'waiting':
    case 'opened':
    case 'checking':
      return { state: openPhaseState(phase, status.value.lastRejectionCheck), final: false };
    case 'expired':
      return EXPIRED;
    case 'failed':
      return { state: 'failed', reason: failureMessage(status.value.failureCheck), final: true };
    case 'idv':
      return { state: 'idv', next: VERIFY_IDENTITY_PATH, final: false };
    case 'confirm':
      return { state: 'confirm', next: CONFIRM_MATCH_PATH, final: false };
    case 'complete':
      return completeSignin(rt, ctx, tx);
  }
}
