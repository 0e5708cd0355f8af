import { defineCommand } from '@tessera/platform';
import { sessionNotFound } from '../domain/errors.js';
import { phaseIndex, type Phase } from '../domain/phases.js';
import type { InvocationBinding } from '../domain/pipeline.js';
import { transition } from '../domain/session-machine.js';
import type { IssuanceServices } from '../services.js';
import { sessionStore } from '../storage/session-store.js';
import { ADVANCE_SESSION } from './ids.js';
import { sessionSummary, type SessionSummary } from './session-view.js';

export interface AdvanceInput {
  correlationId: string;
  phase: Phase;
}

export interface AdvanceOutput {
  session: SessionSummary;
  /** The invocation bindings of `phase` and earlier phases whose connector has not answered yet. */
  awaiting: InvocationBinding[];
}

/**
 * Enters `phase` (001 §2.2) through the state machine: a later phase moves the session forward, the current or an
 * earlier one leaves it where it is. A session the machine does not move (awaiting review, failed, expired) is
 * answered as it stands: the caller reads its status. Answers the bindings still awaited up to that phase, which
 * the session port invokes (port/issuance-sessions.ts).
 */
export const advanceSession = (s: IssuanceServices) =>
  defineCommand<AdvanceInput, AdvanceOutput>({
    id: ADVANCE_SESSION,
    // Called in-process by the wallet-facing issuer once it has authenticated the wallet (the session port).
    access: 'public',
    businessIds: (input, output) => ({
      correlationId: input.correlationId,
      phase: input.phase,
      ...(output ? { status: output.session.status } : {}),
    }),
    async run(ctx, input) {
      const now = s.clock.now();
      return ctx.unitOfWork(async (sql) => {
        const session = await sessionStore.getLive(sql, input.correlationId, now, true);
        if (!session) throw sessionNotFound();
        let state = session.state;
        if (phaseIndex(input.phase) > phaseIndex(state.phase)) {
          const moved = transition(session.pipeline, state, { type: 'ENTER_PHASE', phase: input.phase });
          if (moved.ok) {
            state = moved.state;
            await sessionStore.saveState(sql, session.id, state, now);
          }
        }
        const reached = phaseIndex(state.phase);
        const gathering = state.status !== 'FAILED' && state.status !== 'EXPIRED';
        const awaiting = gathering
          ? session.pipeline.invocationBindings.filter(
              (b) => phaseIndex(b.phase) <= reached && state.contributors[b.connectorId] === undefined,
            )
          : [];
        return { session: sessionSummary(session, state), awaiting };
      });
    },
  });
