import { defineCommand } from '@tessera/platform';
import { publicCandidates } from '../domain/resolution/match-candidates.js';
import { statusView, type SessionStatusView } from '../domain/session.js';
import type { BridgeServices } from '../services.js';
import { sessionExpired } from './errors.js';
import { matchCandidatesOf } from './match-candidates-of.js';
import { readSession } from './read-session.js';

/**
 * GET /auth/oid4vp/sessions/{sessionId}/status (000 §4.1): 404 unknown, 410 once expired (§3.1). At
 * MATCH_CONFIRMATION_REQUIRED it carries the candidates: opaque match ids and masked values, never identity ids.
 */
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
      if (session.status !== 'MATCH_CONFIRMATION_REQUIRED') return statusView(session);
      return statusView(session, publicCandidates(await matchCandidatesOf(services, ctx.tenantId, session)));
    },
  });
