import { defineCommand } from '@tessera/platform';
import type { IssuanceServices } from '../services.js';
import { sessionStore } from '../storage/session-store.js';
import { GET_SESSION } from './ids.js';
import { sessionSummary, type SessionSummary } from './session-view.js';

/** The state of a live session for the session port; null when absent or expired (no error: a lookup). */
export const getSession = (s: IssuanceServices) =>
  defineCommand<{ correlationId: string }, SessionSummary | null>({
    id: GET_SESSION,
    access: 'public',
    businessIds: (input, output) => ({
      correlationId: input.correlationId,
      found: String(output !== null && output !== undefined),
    }),
    async run(ctx, input) {
      const row = await s.platform.db.withTenant(ctx.tenantId, (sql) =>
        sessionStore.getLive(sql, input.correlationId, s.clock.now()),
      );
      return row ? sessionSummary(row) : null;
    },
  });
