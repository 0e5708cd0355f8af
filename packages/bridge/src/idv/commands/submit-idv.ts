import { defineCommand } from '@tessera/platform';
import { completeSessionAfterIdv } from '../../commands/complete-session-after-idv.js';
import { answerMatchConfirmation } from '../../commands/confirm-match.js';
import { invalidSessionState, sessionExpired } from '../../commands/errors.js';
import { readSession } from '../../commands/read-session.js';
import { failureMessage } from '../domain/failure-reasons.js';
import type { InstitutionalLogin } from '../domain/institutional-claims.js';
import type { ReconciliationStatus } from '../domain/reconciliation-state.js';
import type { IdvServices } from '../idv-services.js';
import { currentAttempt } from './current-attempt.js';
import { failReconciliation, reconciliationAad } from './fail-reconciliation.js';
import { finishReconciliation } from './finish-reconciliation.js';

/**
 * POST /auth/oid4vp/sessions/{sessionId}/idv/submit (000 §4.2, §3.1 "any → COMPLETED" when confirmed, §3.2 "a
 * submit with confirmed false aborts the reconciliation; a new IDV attempt may then be started"), on the session's
 * latest attempt:
 * - confirmed false: an open attempt ends in ERROR `aborted` (the presentation session keeps its state, so a new
 *   initiate may start); an attempt already in ERROR answers ERROR again; a COMPLETED one cannot be undone (409).
 * - confirmed true: COMPLETED → the presentation session is COMPLETED (it already is: the callback completed it in
 *   the same unit of work; this is idempotent); CALLBACK_RECEIVED holding a verified login that could not be
 *   recorded → it is recorded now (identity, bindings, session completion); still at the provider, or an answer in
 *   processing, or ERROR → 409.
 * `selectedMatchId`: this bridge's IDV resolves exactly one institutional identity (its federation binding, or a new
 * one), so there is never a choice to make. Given on a COMPLETED attempt it must name that identity (409 otherwise);
 * on an attempt still to be recorded there is nothing to select yet, and it is not used.
 *
 * Match confirmation (issue 14 §11, README "Match confirmation"): on a session at MATCH_CONFIRMATION_REQUIRED the
 * submit is the holder's answer to the candidates (commands/confirm-match.ts) and no IDV attempt is involved; once a
 * confirmation completed the session, a further submit is refused (409).
 */
export interface SubmitIdvInput {
  sessionId: string;
  confirmed: boolean;
  selectedMatchId?: string | undefined;
}

export interface SubmitIdvOutput {
  reconciliationStatus: ReconciliationStatus;
  message: string;
}

const COMPLETED_MESSAGE = 'The identity verification is complete; the session can be completed.';

export const submitIdv = (idv: IdvServices) =>
  defineCommand<SubmitIdvInput, SubmitIdvOutput>({
    id: 'bridge.idv.submit',
    access: 'write',
    requiredScope: idv.bridge.config.sessionClientsScope,
    businessIds: (input, output): Record<string, string> => ({
      sessionId: input.sessionId,
      confirmed: String(input.confirmed),
      ...(output ? { reconciliationStatus: output.reconciliationStatus } : {}),
    }),
    async run(ctx, input) {
      const services = idv.bridge;
      const session = await readSession(services, ctx.tenantId, { id: input.sessionId });
      if (session.status === 'EXPIRED') throw sessionExpired();
      if (session.status === 'MATCH_CONFIRMATION_REQUIRED')
        return answerMatchConfirmation(services, ctx, session, input);
      if (session.status === 'COMPLETED' && session.planType === 'CONFIRM_ATTRIBUTE_MATCH')
        throw invalidSessionState('The match was already confirmed and the session completed.', session.status);
      const { attempt } = await currentAttempt(idv, ctx.tenantId, input.sessionId);

      if (!input.confirmed) {
        if (attempt.status === 'COMPLETED')
          throw invalidSessionState('The identity verification is already complete and cannot be cancelled.');
        if (attempt.status !== 'ERROR') {
          const aborted = await failReconciliation(idv, ctx.tenantId, attempt.id, 'aborted', ctx.unitOfWork);
          if (!aborted) throw invalidSessionState('The identity verification moved meanwhile; ask for its status.');
          return {
            reconciliationStatus: 'ERROR',
            message: `${failureMessage('aborted')} A new attempt may be started.`,
          };
        }
        return {
          reconciliationStatus: 'ERROR',
          message: `${attempt.errorMessage ?? failureMessage('aborted')} A new attempt may be started.`,
        };
      }

      switch (attempt.status) {
        case 'COMPLETED': {
          if (input.selectedMatchId !== undefined && input.selectedMatchId !== attempt.identityId)
            throw invalidSessionState('The selected match is not the identity this verification resolved.');
          await ctx.unitOfWork((sql) =>
            completeSessionAfterIdv(services, { tenantId: ctx.tenantId, sql }, input.sessionId, attempt.identityId!),
          );
          return { reconciliationStatus: 'COMPLETED', message: COMPLETED_MESSAGE };
        }
        case 'CALLBACK_RECEIVED': {
          if (!attempt.outcomeSealed)
            throw invalidSessionState('The identity provider’s answer is still being processed; ask for its status.');
          const login = await services.sealer.openJson<InstitutionalLogin>(
            attempt.outcomeSealed,
            reconciliationAad(ctx.tenantId, attempt.id, 'outcome'),
          );
          const finished = await finishReconciliation(idv, ctx.tenantId, attempt, login, ctx.unitOfWork);
          if (finished.ok) return { reconciliationStatus: 'COMPLETED', message: COMPLETED_MESSAGE };
          return { reconciliationStatus: 'ERROR', message: failureMessage(finished.reason) };
        }
        case 'ERROR':
          throw invalidSessionState('The identity verification ended in error; start a new attempt.');
        default:
          throw invalidSessionState('The identity provider has not answered this attempt yet.');
      }
    },
  });
