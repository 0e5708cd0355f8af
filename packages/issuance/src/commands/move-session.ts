import type { ExecutionContext } from '@tessera/platform';
import { conflict, sessionNotFound } from '../domain/errors.js';
import { transition, type SessionEvent, type SessionState } from '../domain/session-machine.js';
import type { IssuanceServices } from '../services.js';
import { sessionStore } from '../storage/session-store.js';
import { sessionSummary, type SessionSummary } from './session-view.js';

/**
 * Moves one locked live session by the events `plan` chooses for its current state (none: left as it is), each
 * through the state machine; a refused move is 409 and writes nothing. Shared by the port's commands: the move is
 * the command's unit of work, committed with its audit event (issue 13 §7).
 */
export async function moveSession(
  s: IssuanceServices,
  ctx: ExecutionContext,
  correlationId: string,
  plan: (state: SessionState) => SessionEvent[],
): Promise<SessionSummary> {
  const now = s.clock.now();
  return ctx.unitOfWork(async (sql) => {
    const session = await sessionStore.getLive(sql, correlationId, now, true);
    if (!session) throw sessionNotFound();
    let state = session.state;
    for (const event of plan(state)) {
      const moved = transition(session.pipeline, state, event);
      if (!moved.ok) throw conflict(moved.reason);
      state = moved.state;
    }
    if (state !== session.state) await sessionStore.saveState(sql, session.id, state, now);
    return sessionSummary(session, state);
  });
}
