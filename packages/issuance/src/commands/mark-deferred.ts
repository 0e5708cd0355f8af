import { defineCommand } from '@tessera/platform';
import type { IssuanceServices } from '../services.js';
import { MARK_DEFERRED } from './ids.js';
import { moveSession } from './move-session.js';
import type { SessionSummary } from './session-view.js';

/**
 * The credential request was answered as deferred (OpenID4VCI 1.0 §9, 001 §3): IN_PROGRESS → DEFERRED. A session
 * already deferred stays so (the wallet may ask again); any other state is 409.
 */
export const markDeferred = (s: IssuanceServices) =>
  defineCommand<{ correlationId: string }, SessionSummary>({
    id: MARK_DEFERRED,
    access: 'public',
    businessIds: (input, output) => ({
      correlationId: input.correlationId,
      ...(output ? { status: output.status } : {}),
    }),
    async run(ctx, input) {
      let moved = false;
      const view = await moveSession(s, ctx, input.correlationId, (state) => {
        moved = state.status !== 'DEFERRED';
        return moved ? [{ type: 'DEFERRED' }] : [];
      });
      // The deferral rate's numerator (metrics.ts): each session counted once, when it moves.
      if (moved) s.metrics.deferrals.inc();
      return view;
    },
  });
