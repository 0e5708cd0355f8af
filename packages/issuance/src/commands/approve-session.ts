import { defineCommand } from '@tessera/platform';
import { conflict, sessionNotFound } from '../domain/errors.js';
import { transition } from '../domain/session-machine.js';
import type { IssuanceServices } from '../services.js';
import { sessionStore } from '../storage/session-store.js';
import { APPROVE_SESSION } from './ids.js';
import { sessionSummary, type SessionSummary } from './session-view.js';

export interface ApproveInput {
  correlationId: string;
  decision: 'APPROVED' | 'REJECTED';
  reason?: string | undefined;
}

/**
 * POST /sessions/{correlationId}/approve `{decision, reason?}` (001 §3, §4.2): only from AWAITING_REVIEW;
 * APPROVED lets issuance continue (READY), REJECTED fails the session; from any other state 409. The reason is
 * stored with the session, never put in the audit (it may describe the person).
 */
export const approveSession = (s: IssuanceServices) =>
  defineCommand<ApproveInput, SessionSummary>({
    id: APPROVE_SESSION,
    access: 'write',
    businessIds: (input) => ({ correlationId: input.correlationId, decision: input.decision }),
    async run(ctx, input) {
      const now = s.clock.now();
      return ctx.unitOfWork(async (sql) => {
        const session = await sessionStore.getLive(sql, input.correlationId, now, true);
        if (!session) throw sessionNotFound();
        const moved = transition(session.pipeline, session.state, { type: 'DECIDED', decision: input.decision });
        if (!moved.ok) throw conflict(moved.reason);
        await sessionStore.saveState(sql, session.id, moved.state, now, input.reason);
        return sessionSummary(session, moved.state);
      });
    },
  });
