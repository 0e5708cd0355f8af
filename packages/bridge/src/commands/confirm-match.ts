import { invalidRequest, isAppError, StagedAuditEvents, type ExecutionContext } from '@tessera/platform';
import { REASONS } from '../domain/resolution/plan.js';
import type { MatchCandidate } from '../domain/resolution/match-candidates.js';
import type { PresentationSession } from '../domain/session.js';
import type { BridgeServices } from '../services.js';
import { sessionStore } from '../storage/session-store.js';
import { withSavepoint } from '../storage/savepoint.js';
import { sessionEvent } from './audit-events.js';
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
 * answer (409). Each move commits with its events and the command's own (issue 13 §7).
 */
export interface MatchAnswer {
  reconciliationStatus: 'COMPLETED' | 'ERROR';
  message: string;
}

export const CONFIRMED_MESSAGE = 'The account was confirmed; the session can be completed.';
export const DECLINED_MESSAGE = 'No account was confirmed; verify your identity at your institution instead.';

export async function answerMatchConfirmation(
  services: BridgeServices,
  ctx: ExecutionContext,
  session: PresentationSession,
  input: { confirmed: boolean; selectedMatchId?: string | undefined },
): Promise<MatchAnswer> {
  if (services.clock.now() >= session.expiresAt) throw sessionExpired();
  const candidates = await matchCandidatesOf(services, ctx.tenantId, session);
  if (!input.confirmed) return decline(services, ctx, session, candidates.length, REASONS.declined);
  const chosen = choose(candidates, input.selectedMatchId);
  return confirm(services, ctx, session, chosen);
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
  ctx: ExecutionContext,
  session: PresentationSession,
  candidates: number,
  reason: string,
): Promise<MatchAnswer> {
  const { tenantId } = ctx;
  const events = new StagedAuditEvents(services.platform.audit);
  await ctx.unitOfWork(async (sql) => {
    const moved = await sessionStore.transition(
      sql,
      session.id,
      ['MATCH_CONFIRMATION_REQUIRED'],
      'IDV_REQUIRED',
      services.clock.now(),
      {
        planType: 'RECONCILE_VIA_IDV',
        planIdentityId: null,
        idvRequired: true,
        idvReason: reason,
        matchCandidatesSealed: null,
      },
    );
    if (!moved) throw invalidSessionState('The session moved meanwhile; ask for its status.');
    await events.stage(
      sql,
      sessionEvent(services, tenantId, moved, 'match_declined', {
        candidates,
        outcome: reason === REASONS.declined ? 'declined' : 'binding_conflict',
      }),
    );
  });
  await events.chain();
  return {
    reconciliationStatus: 'ERROR',
    message: reason === REASONS.declined ? DECLINED_MESSAGE : `${reason} Verify your identity at your institution.`,
  };
}

async function confirm(
  services: BridgeServices,
  ctx: ExecutionContext,
  session: PresentationSession,
  chosen: MatchCandidate,
): Promise<MatchAnswer> {
  const { tenantId } = ctx;
  const now = services.clock.now();
  const presented = await presentedClaimsOf(services, tenantId, session);
  const events = new StagedAuditEvents(services.platform.audit);
  const outcome = await ctx.unitOfWork(async (sql) => {
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
    const identityId = result.userId;
    await events.stage(
      sql,
      sessionEvent(services, tenantId, moved, 'binding_created', { identityId, planType: moved.planType }),
    );
    await events.stage(
      sql,
      sessionEvent(services, tenantId, moved, 'match_confirmed', { identityId, matchId: chosen.matchId }),
    );
    await events.stage(
      sql,
      sessionEvent(services, tenantId, moved, 'session_completed', {
        planType: moved.planType,
        claimSource: result.claimSource,
      }),
    );
    return { kind: 'completed' as const };
  });
  if (outcome.kind === 'gone') return decline(services, ctx, session, 1, outcome.reason);
  await events.chain();
  return { reconciliationStatus: 'COMPLETED', message: CONFIRMED_MESSAGE };
}
