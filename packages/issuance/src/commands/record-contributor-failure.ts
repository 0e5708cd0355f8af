import { defineCommand } from '@tessera/platform';
import { allComplete, evaluateCompleteness, requiredPaths } from '../domain/completeness.js';
import { conflict, invalidField, sessionNotFound } from '../domain/errors.js';
import { contributorRequirement } from '../domain/pipeline.js';
import { transition } from '../domain/session-machine.js';
import type { IssuanceServices } from '../services.js';
import { bagStore } from '../storage/bag-store.js';
import { sessionStore } from '../storage/session-store.js';
import { RECORD_CONTRIBUTOR_FAILURE } from './ids.js';
import { sessionSummary, type SessionSummary } from './session-view.js';

export interface RecordFailureInput {
  correlationId: string;
  contributor_id: string;
  reason: string;
}

export type RecordFailureOutput = SessionSummary & { contributor_required: boolean };

/**
 * POST /sessions/{correlationId}/fail `{contributor_id, reason}` (001 §3): a required contributor's failure fails
 * the session; an optional one's stops the wait and the session goes on. A contributor the pipeline does not bind
 * is refused (400): there is no wait to stop.
 */
export const recordContributorFailure = (s: IssuanceServices) =>
  defineCommand<RecordFailureInput, RecordFailureOutput>({
    id: RECORD_CONTRIBUTOR_FAILURE,
    access: 'write',
    businessIds: (input, output) => ({
      correlationId: input.correlationId,
      contributorId: input.contributor_id,
      ...(output ? { status: output.status } : {}),
    }),
    async run(ctx, input) {
      const now = s.clock.now();
      return s.platform.db.withTenant(ctx.tenantId, async (sql) => {
        const session = await sessionStore.getLive(sql, input.correlationId, now, true);
        if (!session) throw sessionNotFound();
        const requirement = contributorRequirement(session.pipeline, input.contributor_id);
        if (requirement === 'unbound')
          throw invalidField('contributor_id', 'The session pipeline binds no such contributor.');
        const complete = allComplete(
          evaluateCompleteness(
            session.pipeline,
            await bagStore.paths(sql, session.id, requiredPaths(session.pipeline)),
          ),
        );
        const moved = transition(session.pipeline, session.state, {
          type: 'CONTRIBUTOR_FAILED',
          contributorId: input.contributor_id,
          required: requirement === 'required',
          complete,
        });
        if (!moved.ok) throw conflict(moved.reason);
        const failed = moved.state.status === 'FAILED';
        await sessionStore.saveState(sql, session.id, moved.state, now, failed ? input.reason : undefined);
        return { ...sessionSummary(session, moved.state), contributor_required: requirement === 'required' };
      });
    },
  });
