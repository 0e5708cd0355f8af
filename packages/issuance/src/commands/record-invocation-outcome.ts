import { defineCommand, isAppError } from '@tessera/platform';
import type { CallOutcome } from '../connectors/call-connector.js';
import { flattenGroups } from '../domain/contribution.js';
import { sessionNotFound } from '../domain/errors.js';
import type { InvocationBinding } from '../domain/pipeline.js';
import type { IssuanceServices } from '../services.js';
import { invocationStore } from '../storage/invocation-store.js';
import { sessionStore } from '../storage/session-store.js';
import { runContribution } from './contribute-attributes.js';
import { RECORD_INVOCATION_OUTCOME } from './ids.js';
import { applyContributorFailure } from './record-contributor-failure.js';

export interface InvocationOutcomeInput {
  correlationId: string;
  invocationId: string;
  binding: InvocationBinding;
  outcome: CallOutcome;
}

export interface InvocationOutcomeOutput {
  /** What the invocation's row says now. */
  invocation: 'contributed' | 'accepted' | 'failed';
  /** The session's status after it, when it moved. */
  status: string | null;
}

/**
 * Applies one connector invocation's outcome to its session (001 §3, §4.2) with the invocation's delivery status, in
 * one unit of work:
 * - answered with groups: the contribution, as if posted by the connector (provenance: the connector, its phase);
 * - 202: the invocation waits for its callback, nothing else moves;
 * - failed (unreachable, circuit open, refused, an invalid answer): the contributor's failure — a required
 *   connector fails the session, an optional one is released and the session goes on.
 * A session that no longer takes the move (reviewed, failed, expired meanwhile) keeps the invocation's status only.
 */
export const recordInvocationOutcome = (s: IssuanceServices) =>
  defineCommand<InvocationOutcomeInput, InvocationOutcomeOutput>({
    id: RECORD_INVOCATION_OUTCOME,
    // Run by the pipeline itself after calling a connector, never by a request.
    access: 'public',
    businessIds: (input, output) => ({
      correlationId: input.correlationId,
      invocationId: input.invocationId,
      connectorId: input.binding.connectorId,
      phase: input.binding.phase,
      outcome: input.outcome.kind === 'failed' ? `failed:${input.outcome.failure}` : input.outcome.kind,
      ...(output?.status ? { status: output.status } : {}),
    }),
    async run(ctx, input) {
      const { outcome, invocationId, binding } = input;
      // Each path is one unit of work with the command's audit event (issue 13 §7); a refused move rolls back and
      // the invocation's own status is then kept by a unit of its own.
      const finish = (status: InvocationOutcomeOutput['invocation']) =>
        ctx.unitOfWork((sql) => invocationStore.finish(sql, invocationId, status, outcome.delivery, s.clock.now()));
      try {
        if (outcome.kind === 'accepted') {
          await finish('accepted');
          return { invocation: 'accepted', status: null };
        }
        if (outcome.kind === 'answered') {
          const contribution = flattenGroups(outcome.groups, binding.phase);
          const result = await runContribution(s, ctx, input.correlationId, contribution, (sql, now) =>
            invocationStore.finish(sql, invocationId, 'contributed', outcome.delivery, now),
          );
          return { invocation: 'contributed', status: result.status };
        }
        s.metrics.connectorFailures.inc({ connector: binding.connectorId, kind: outcome.failure });
        const now = s.clock.now();
        const status = await ctx.unitOfWork(async (sql) => {
          await invocationStore.finish(sql, invocationId, 'failed', outcome.delivery, now);
          const session = await sessionStore.getLive(sql, input.correlationId, now, true);
          if (!session) throw sessionNotFound();
          const reason = `connector ${binding.connectorId}: ${outcome.failure}`;
          return (await applyContributorFailure(sql, session, binding.connectorId, reason, now)).status;
        });
        return { invocation: 'failed', status };
      } catch (error) {
        // The session refused the move (409) or is gone (404): the invocation's own status is still kept.
        if (!isAppError(error) || (error.code !== 'conflict' && error.code !== 'not_found')) throw error;
        await finish(outcome.kind === 'answered' ? 'failed' : outcome.kind === 'failed' ? 'failed' : 'accepted');
        return { invocation: 'failed', status: null };
      }
    },
  });
