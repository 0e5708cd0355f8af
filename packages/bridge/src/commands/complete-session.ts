import { defineCommand, isAppError, StagedAuditEvents, type ExecutionContext } from '@tessera/platform';
import { IDV_STEPS, REASONS, reconcile, type Plan } from '../domain/resolution/plan.js';
import type { CompletionResult, IdvRequiredResult, PresentationSession } from '../domain/session.js';
import type { BridgeServices } from '../services.js';
import { sessionStore } from '../storage/session-store.js';
import { withSavepoint } from '../storage/savepoint.js';
import { sessionEvent } from './audit-events.js';
import { completionResult, presentedClaimsOf, sealResult, storedResultOf } from './completion.js';
import { invalidSessionState, sessionExpired } from './errors.js';
import { matchCandidatesOf } from './match-candidates-of.js';
import { readSession } from './read-session.js';

/**
 * POST /auth/oid4vp/sessions/{sessionId}/complete (000 §4.1, §2.3). On VERIFIED the plan decided at verification
 * is carried out in one unit of work with the identity store:
 * - USE_EXISTING_BINDING: 200, claimSource CANONICAL_BINDING; the session moves to COMPLETED;
 * - AUTO_MATCH_BY_ATTRIBUTE: the holder key is bound to the matched identity (binding_created), 200, claimSource
 *   ATTRIBUTE_MATCH, COMPLETED;
 * - RECONCILE_VIA_IDV (or a binding that no longer holds): 202 idvRequired, the session moves to IDV_REQUIRED.
 * - CONFIRM_ATTRIBUTE_MATCH (README "Match confirmation"): 202 with `matchConfirmationRequired: true`, the session moves
 *   to MATCH_CONFIRMATION_REQUIRED; the holder's choice arrives through idv/submit.
 * The completion, its `binding_created` and `session_completed` events and the command's own event commit in one
 * unit of work (issue 13 §7): a completion is never committed without them, and a failed one changed nothing.
 * Called again: COMPLETED answers 200 with the same result, IDV_REQUIRED and MATCH_CONFIRMATION_REQUIRED 202 again. Before VERIFIED (or
 * after ERROR) 409 invalid_session_state. A VERIFIED or IDV_REQUIRED session is completable until its expiry.
 */
export type CompleteSessionOutput = { status: 200; body: CompletionResult } | { status: 202; body: IdvRequiredResult };

const IDV_REQUIRED: IdvRequiredResult = { idvRequired: true, idvMethod: 'oidc', idvSteps: [...IDV_STEPS] };
const CONFIRMATION_REQUIRED: IdvRequiredResult = { ...IDV_REQUIRED, matchConfirmationRequired: true };

export const completeSession = (services: BridgeServices) =>
  defineCommand<{ sessionId: string }, CompleteSessionOutput>({
    id: 'bridge.sessions.complete',
    access: 'write',
    requiredScope: services.config.sessionClientsScope,
    businessIds: (input, output): Record<string, string> => ({
      sessionId: input.sessionId,
      ...(output ? { outcome: String(output.status) } : {}),
    }),
    async run(ctx, { sessionId }) {
      for (let attempt = 0; attempt < 3; attempt++) {
        const session = await readSession(services, ctx.tenantId, { id: sessionId });
        switch (session.status) {
          case 'COMPLETED':
            return { status: 200, body: await storedResultOf(services, ctx.tenantId, session) };
          case 'EXPIRED':
            throw sessionExpired();
          case 'IDV_REQUIRED':
            if (services.clock.now() >= session.expiresAt) throw sessionExpired();
            return { status: 202, body: IDV_REQUIRED };
          case 'MATCH_CONFIRMATION_REQUIRED':
            if (services.clock.now() >= session.expiresAt) throw sessionExpired();
            return { status: 202, body: CONFIRMATION_REQUIRED };
          case 'VERIFIED': {
            if (services.clock.now() >= session.expiresAt) throw sessionExpired();
            const done = await carryOutPlan(services, ctx, session);
            if (done) return done;
            continue; // another request moved the session first: answer from its new state
          }
          default:
            throw invalidSessionState(`The session is ${session.status}; it can be completed once VERIFIED.`);
        }
      }
      throw invalidSessionState('The session is being completed by another request.');
    },
  });

async function carryOutPlan(
  services: BridgeServices,
  ctx: ExecutionContext,
  session: PresentationSession,
): Promise<CompleteSessionOutput | null> {
  const { tenantId } = ctx;
  const now = services.clock.now();
  if (session.planType === 'CONFIRM_ATTRIBUTE_MATCH') return askForConfirmation(services, ctx, session);
  const presented = await presentedClaimsOf(services, tenantId, session);
  const events = new StagedAuditEvents(services.platform.audit);
  const outcome = await ctx.unitOfWork(async (sql) => {
    const unit = { tenantId, sql };
    let plan: Plan = {
      type: session.planType!,
      identityId: session.planIdentityId,
      idvRequired: session.idvRequired,
      reason: session.idvReason,
    };
    let identity = plan.identityId ? await services.identities.get(unit, plan.identityId) : null;
    if (plan.type !== 'RECONCILE_VIA_IDV' && !identity) plan = reconcile(REASONS.boundIdentityGone);
    let bound = false;
    if (plan.type === 'AUTO_MATCH_BY_ATTRIBUTE' && identity) {
      try {
        await withSavepoint(sql, 'bind_wallet', () =>
          services.identities.bindWallet(unit, identity!.internalIdentityId, session.holderKey!),
        );
        bound = true;
      } catch (error) {
        if (!isAppError(error) || error.code !== 'conflict') throw error;
        plan = reconcile(REASONS.bindingConflict);
        identity = null;
      }
    }
    if (plan.type === 'RECONCILE_VIA_IDV' || !identity) {
      const moved = await sessionStore.transition(sql, session.id, ['VERIFIED'], 'IDV_REQUIRED', now, {
        planType: 'RECONCILE_VIA_IDV',
        planIdentityId: null,
        idvRequired: true,
        idvReason: plan.reason,
      });
      return moved ? ({ kind: 'idv', moved } as const) : null;
    }
    const result = completionResult(
      services,
      session,
      presented,
      identity,
      plan.type === 'USE_EXISTING_BINDING' ? 'CANONICAL_BINDING' : 'ATTRIBUTE_MATCH',
      false,
    );
    const moved = await sessionStore.transition(sql, session.id, ['VERIFIED'], 'COMPLETED', now, {
      resultSealed: await sealResult(services, tenantId, session.id, result, sql),
      completedAt: now,
    });
    if (!moved) return null;
    if (bound)
      await events.stage(
        sql,
        sessionEvent(services, tenantId, moved, 'binding_created', { identityId: result.userId, planType: plan.type }),
      );
    await events.stage(
      sql,
      sessionEvent(services, tenantId, moved, 'session_completed', {
        planType: plan.type,
        claimSource: result.claimSource,
      }),
    );
    return { kind: 'completed', moved, result, bound, plan } as const;
  });
  if (!outcome) return null;
  if (outcome.kind === 'idv') return { status: 202, body: IDV_REQUIRED };
  await events.chain();
  return { status: 200, body: outcome.result };
}

/**
 * VERIFIED → MATCH_CONFIRMATION_REQUIRED (README "Match confirmation"), audited with the number of candidates: the
 * move, its event and the command's own commit together (issue 13 §7).
 */
async function askForConfirmation(
  services: BridgeServices,
  ctx: ExecutionContext,
  session: PresentationSession,
): Promise<CompleteSessionOutput | null> {
  const { tenantId } = ctx;
  const candidates = await matchCandidatesOf(services, tenantId, session);
  const events = new StagedAuditEvents(services.platform.audit);
  const moved = await ctx.unitOfWork(async (sql) => {
    const asked = await sessionStore.transition(
      sql,
      session.id,
      ['VERIFIED'],
      'MATCH_CONFIRMATION_REQUIRED',
      services.clock.now(),
    );
    if (asked)
      await events.stage(
        sql,
        sessionEvent(services, tenantId, asked, 'match_confirmation_required', {
          planType: asked.planType,
          candidates: candidates.length,
        }),
      );
    return asked;
  });
  if (!moved) return null;
  await events.chain();
  return { status: 202, body: CONFIRMATION_REQUIRED };
}
