import type { MatchCandidate } from '../clients/bridge-client.js';
import type { CallContext } from '../clients/service-call.js';
import { authorizeUrl } from '../domain/authorization-params.js';
import type { LoginTransaction } from '../transaction/login-transaction.js';
import { VERIFY_IDENTITY_PATH } from './read-signin-status.js';
import type { PortalRuntime } from './runtime.js';

/**
 * The confirmation of a matching account (issue 14 §11; bridge README "Match confirmation"): the bridge found
 * accounts that may be the holder's but cannot tell for sure; the holder confirms one, or says none is theirs and
 * verifies their identity at the institution instead (flows.md 5').
 */
export type CandidatesOutcome =
  | { kind: 'candidates'; candidates: MatchCandidate[] }
  /** The session is no longer waiting for a confirmation: the sign-in page's status knows where it is. */
  | { kind: 'elsewhere' }
  | { kind: 'expired' };

export async function readCandidates(
  rt: PortalRuntime,
  ctx: CallContext,
  tx: LoginTransaction,
): Promise<CandidatesOutcome> {
  const status = await rt.bridge.status(ctx, tx.sessionId);
  if (status.kind !== 'ok') return { kind: 'expired' };
  if (status.value.status !== 'MATCH_CONFIRMATION_REQUIRED' || status.value.matchCandidates.length === 0)
    return { kind: 'elsewhere' };
  return { kind: 'candidates', candidates: status.value.matchCandidates };
}

export type MatchChoice = { confirmed: true; selectedMatchId: string } | { confirmed: false };

export type ChoiceOutcome =
  | { kind: 'redirect'; location: string }
  /** The id is not one of this session's candidates (bridge 400): the page is shown again. */
  | { kind: 'refused' }
  | { kind: 'expired' }
  | { kind: 'not_possible' };

/**
 * POST /signin/confirm-account: the holder's choice goes to the bridge (idv/submit). Confirmed and COMPLETED: the
 * portal completes the session (200) and the browser goes to the token service's /authorize, as after any wallet
 * login (flows.md step 6). Declined (or the chosen account could no longer be linked: the bridge answers ERROR and
 * moves the session to IDV_REQUIRED): the identity verification page.
 */
export async function answerCandidates(
  rt: PortalRuntime,
  ctx: CallContext,
  tx: LoginTransaction,
  choice: MatchChoice,
): Promise<ChoiceOutcome> {
  const answered = await rt.bridge.submitMatch(ctx, tx.sessionId, choice);
  if (answered.kind === 'expired' || answered.kind === 'not_found') return { kind: 'expired' };
  if (answered.kind === 'invalid_state') return { kind: 'not_possible' };
  if (answered.value.kind === 'refused') return { kind: 'refused' };
  if (answered.value.reconciliationStatus !== 'COMPLETED') return { kind: 'redirect', location: VERIFY_IDENTITY_PATH };
  const done = await rt.bridge.complete(ctx, tx.sessionId);
  if (done.kind === 'expired' || done.kind === 'not_found') return { kind: 'expired' };
  if (done.kind !== 'ok' || done.value.kind !== 'completed') return { kind: 'not_possible' };
  return { kind: 'redirect', location: authorizeUrl(rt.options.tokenServicePublicUrl, tx.params, tx.sessionId) };
}
