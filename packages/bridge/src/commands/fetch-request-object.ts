import { defineCommand } from '@tessera/platform';
import type { BridgeServices } from '../services.js';
import { sessionStore } from '../storage/session-store.js';
import { invalidSessionState, sessionExpired } from './errors.js';
import { readSession } from './read-session.js';

/**
 * GET /auth/oid4vp/requests/{id} (000 §4.1 request-object path; §3.1 CREATED → INTERACTION_STARTED). The wallet
 * gets the signed request object (RFC 9101 §5.2). Decided: a second fetch while INTERACTION_STARTED answers the same
 * object and moves nothing (a wallet may retry a lost answer; the nonce still admits one response only); once a
 * response was received the request is spent: 409 invalid_session_state. Expired: 410. Never a redirect (§14.8).
 */
export const fetchRequestObject = (services: BridgeServices) =>
  defineCommand<{ requestId: string }, { requestObject: string }>({
    id: 'bridge.requests.fetch',
    access: 'public',
    async run(ctx, { requestId }) {
      let session = await readSession(services, ctx.tenantId, { requestId });
      if (session.status === 'EXPIRED') throw sessionExpired();
      if (session.status === 'CREATED') {
        // The move and the command's audit event commit together (issue 13 §7).
        const moved = await ctx.unitOfWork((sql) =>
          sessionStore.transition(sql, session.id, ['CREATED'], 'INTERACTION_STARTED', services.clock.now()),
        );
        session = moved ?? (await readSession(services, ctx.tenantId, { requestId }));
      }
      if (session.status !== 'INTERACTION_STARTED') throw invalidSessionState('The request was already answered.');
      return { requestObject: session.requestObject };
    },
  });
