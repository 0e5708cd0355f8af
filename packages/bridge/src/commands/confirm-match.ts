import { invalidRequest, isAppError } from '@tessera/platform';
import { REASONS } from '../domain/resolution/plan.js';
import type { MatchCandidate } from '../domain/resolution/match-candidates.js';
import type { PresentationSession } from '../domain/session.js';
import type { BridgeServices } from '../services.js';
import { sessionStore } from '../storage/session-store.js';
import { withSavepoint } from '../storage/savepoint.js';
import { auditSessionEvent } from './audit-events.js';
import { completionResult, presentedClaimsOf, sealResult } from './completion.js';
import { invalidSessionState, sessionExpired } from './errors.js';
import { matchCandidatesOf } from './match-candidates-of.js';

/**
 * The holder's answer to a match confirmation (issue 14 §11; 000 §4.2 idv/submit "for manual confirmation when a
 * potential match needs user confirmation"; README "Match confirmation"), on a session at MATCH_CONFIRMATION_REQUIRED:
 * - `confirmed: true`: `selectedMatchId` names one of the session's candidates (optional when there is exactly one,
 *   000 §4.2 "used when several matches exist"); the wallet is bound to that identity and the session COMPLETED
 *   (claimSource ATTRIBUTE_MATCH), 200 COMPLETED. An id that is not a candidate of this very session → 400
 *   invalid_request: ids are random per session, so one from another session is refused like any other.
 * - `confirmed: false`: the session moves to IDV_REQUIRED (the candidates are dropped), 200 ERROR ("aborts the
 *   reconciliation", 000 §3.2); `initiate` then starts IDV.
 * If the chosen identity is gone, or got a wallet meanwhile, or the wallet got another identity, the session moves to
 * IDV_REQUIRED instead (answered ERROR with the reason). A second submit after either move finds no confirmation to
 * answer (409).
 */
export interface MatchAnswer {
  reconciliationStatus: 'COMPLETED' | 'ERROR';
  message: string;
}

export const CONFIRMED_MESSAGE = 'The account was confirmed; the session can be completed.';
export const DECLINED_MESSAGE = 'No account was confirmed; verify your identity at your institution instead.';

export async function answerMatchConfirmation(
  services: BridgeServices,
  tenantId: string,
  session: PresentationSession,
  input: { confirmed: boolean; selectedMatchId?: string | undefined },
): Promise<MatchAnswer> {
  if (services.clock.now() >= session.expiresAt) throw sessionExpired();
  const candidates = await matchCandidatesOf(services, tenantId, session);
  if (!input.confirmed) return decline(services, tenantId, session, candidates.length, REASONS.declined);
  const chosen = choose(candidates, input.selectedMatchId);
  return confirm(services, tenantId, session, chosen);
}

function choose(candidates: readonly MatchCandidate[], selectedMatchId: string | undefined): MatchCandidate {
  if (selectedMatchId === undefined) {
    if (candidates.length === 1) return candidates[0]!;
    throw invalidRequest('selectedMatchId is required: several accounts match.', 'selectedMatchId');
  }
  const chosen = candidates.find((c) => c.matchId === selectedMatchId);
  if (!chosen) throw invalidRequest('selectedMatchId is not a match of this session.', 'selectedMatchId');
  return chosen;
}

async function decline(
  services: BridgeServices,
  tenantId: string,
  session: PresentationSession,
  candidates: number,
  reason: string,
): Promise<MatchAnswer> {
  const moved = await services.platform.db.withTenant(tenantId, (sql) =>
    sessionStore.transition(sql, session.id, ['MATCH_CONFIRMATION_REQUIRED'], 'IDV_REQUIRED', services.clock.now(), {
      planType: 'RECONCILE_VIA_IDV',
      planIdentityId: null,
      idvRequired: true,
      idvReason: reason,
      matchCandidatesSealed: null,
    }),
  );
  if (!moved) throw invalidSessionState('The session moved meanwhile; ask for its status.');
  await auditSessionEvent(services, tenantId, moved, 'match_declined', {
    candidates,
    outcome: reason === REASONS.declined ? 'declined' : 'binding_conflict',
  });
  return {
    reconciliationStatus: 'ERROR',
    message: reason === REASONS.declined ? DECLINED_MESSAGE : `${reason} Verify your identity at your institution.`,
  };
}

async function confirm(
  services: BridgeServices,
  tenantId: string,
  session: PresentationSession,
  chosen: MatchCandidate,
): Promise<MatchAnswer> {
  const now = services.clock.now();
  const presented = await presentedClaimsOf(services, tenantId, session);
  const outcome = await services.platform.db.withTenant(tenantId, async (sql) => {
    const unit = { tenantId, sql };
    const identity = await services.identities.get(unit, chosen.identityId);
    // Re-checked now: the identity may have been erased, or have got a wallet since the candidates were drawn.
    if (!identity) return { kind: 'gone' as const, reason: REASONS.boundIdentityGone };
    if (identity.bindings.walletBound) return { kind: 'gone' as const, reason: REASONS.bindingConflict };
    try {
      await withSavepoint(sql, 'bind_wallet', () =>
        services.identities.bindWallet(unit, identity.internalIdentityId, session.holderKey!),
      );
    } catch (error) {
      if (!isAppError(error) || error.code !== 'conflict') throw error;
      return { kind: 'gone' as const, reason: REASONS.bindingConflict };
    }
    const result = completionResult(services, session, presented, identity, 'ATTRIBUTE_MATCH', false);
    const moved = await sessionStore.transition(sql, session.id, ['MATCH_CONFIRMATION_REQUIRED'], 'COMPLETED', now, {
      planIdentityId: identity.internalIdentityId,
      resultSealed: await sealResult(services, tenantId, session.id, result, sql),
      completedAt: now,
    });
    // Another submit moved the session first: nothing of this one stays (the binding rolls back with the unit).
    if (!moved) throw invalidSessionState('The session moved meanwhile; ask for its status.');
    return { kind: 'completed' as const, moved, result };
  });
  if (outcome.kind === 'gone') return decline(services, tenantId, session, 1, outcome.reason);
  await auditSessionEvent(services, tenantId, outcome.moved, 'binding_created', {
    identityId: outcome.result.userId,
    planType: outcome.moved.planType,
  });
  await auditSessionEvent(services, tenantId, outcome.moved, 'match_confirmed', {
    identityId: outcome.result.userId,
    matchId: chosen.matchId,
  });
  await auditSessionEvent(services, tenantId, outcome.moved, 'session_completed', {
    planType: outcome.moved.planType,
    claimSource: outcome.result.claimSource,
  });
  return { reconciliationStatus: 'COMPLETED', message: CONFIRMED_MESSAGE };
}
