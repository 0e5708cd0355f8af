import { defineCommand } from '@tessera/platform';
import { statusView, type SessionStatusView } from '../domain/session.js';
import type { BridgeServices } from '../services.js';
import { sessionExpired } from './errors.js';
import { readSession } from './read-session.js';

/** GET /auth/oid4vp/sessions/{sessionId}/status (000 §4.1): 404 unknown, 410 once expired (§3.1). */
export const getSessionStatus = (services: BridgeServices) =>
  defineCommand<{ sessionId: string }, SessionStatusView>({
    id: 'bridge.sessions.status',
    access: 'read',
    requiredScope: services.config.sessionClientsScope,
    // Polled every 2 s (000 §8): a read that moves nothing beyond expiry (audited as session_failed) is not audited
    // per call; denials still are.
    audit: 'self',
    businessIds: (input): Record<string, string> => ({ sessionId: input.sessionId }),
    async run(ctx, { sessionId }) {
      const session = await readSession(services, ctx.tenantId, { id: sessionId });
      if (session.status === 'EXPIRED') throw sessionExpired();
      return statusView(session);
    },
  });
