import { defineCommand, type Sql } from '@tessera/platform';
import { allComplete, evaluateCompleteness, requiredPaths } from '../domain/completeness.js';
import { conflict, invalidField, sessionNotFound } from '../domain/errors.js';
import { contributorRequirement } from '../domain/pipeline.js';
import { transition, type SessionState } from '../domain/session-machine.js';
import type { IssuanceServices } from '../services.js';
import { bagStore } from '../storage/bag-store.js';
import { sessionStore, type SessionRow } from '../storage/session-store.js';
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
      return ctx.unitOfWork(async (sql) => {
        const session = await sessionStore.getLive(sql, input.correlationId, now, true);
        if (!session) throw sessionNotFound();
        const requirement = contributorRequirement(session.pipeline, input.contributor_id);
        if (requirement === 'unbound')
          throw invalidField('contributor_id', 'The session pipeline binds no such contributor.');
        const state = await applyContributorFailure(sql, session, input.contributor_id, input.reason, now);
        return { ...sessionSummary(session, state), contributor_required: requirement === 'required' };
      });
    },
  });

/**
 * Moves a locked session through a bound contributor's failure (001 §3) and saves it, in the caller's unit of
 * work; shared with the connector invocations (a connector that cannot be reached fails like a reported failure).
 * A refused move is 409 and writes nothing.
 */
export async function applyContributorFailure(
  sql: Sql,
  session: SessionRow,
  contributorId: string,
  reason: string,
  now: Date,
): Promise<SessionState> {
  const complete = allComplete(
    evaluateCompleteness(session.pipeline, await bagStore.paths(sql, session.id, requiredPaths(session.pipeline))),
  );
  const moved = transition(session.pipeline, session.state, {
    type: 'CONTRIBUTOR_FAILED',
    contributorId,
    required: contributorRequirement(session.pipeline, contributorId) === 'required',
    complete,
  });
  if (!moved.ok) throw conflict(moved.reason);
  const failed = moved.state.status === 'FAILED';
  await sessionStore.saveState(sql, session.id, moved.state, now, failed ? reason : undefined);
  return moved.state;
}
