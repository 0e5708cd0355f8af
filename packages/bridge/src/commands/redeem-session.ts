import { constantTimeEqual, defineCommand } from '@tessera/platform';
import type { CompletionResult } from '../domain/session.js';
import type { BridgeServices } from '../services.js';
import { sessionStore } from '../storage/session-store.js';
import { storedResultOf } from './completion.js';
import { invalidSessionState, sessionExpired } from './errors.js';
import { readSession } from './read-session.js';

/**
 * POST /auth/oid4vp/sessions/{sessionId}/redeem (extension; flows.md step 7): the token service takes the result
 * of a wallet login only if the session is COMPLETED, completed within `redeem.windowSeconds`, not redeemed yet, and
 * bound to this very authorization request (client_id and code_challenge): knowing a session id is never enough.
 * The redemption is one conditional update, so of two concurrent redemptions exactly one succeeds.
 */
export interface RedeemSessionInput {
  sessionId: string;
  clientId: string;
  codeChallenge: string;
}

export interface RedeemSessionOutput extends CompletionResult {
  sessionId: string;
  oauthSessionId: string | null;
}

/** Rolls back a redemption unit whose conditional update matched no session. */
const NOT_REDEEMED = new Error('not redeemed');

const same = (a: string | null, b: string) => a !== null && constantTimeEqual(a, b);

export const redeemSession = (services: BridgeServices) =>
  defineCommand<RedeemSessionInput, RedeemSessionOutput>({
    id: 'bridge.sessions.redeem',
    access: 'write',
    requiredScope: services.config.redeem.scope,
    businessIds: (input): Record<string, string> => ({ sessionId: input.sessionId, clientId: input.clientId }),
    async run(ctx, input) {
      const now = services.clock.now();
      const since = new Date(now.getTime() - services.config.redeem.windowSeconds * 1000);
      // The redemption and the command's audit event commit together (issue 13 §7); the stored result is opened in
      // the same unit, so that a redemption is never committed without its answer. A session that cannot be
      // redeemed rolls the unit back: nothing staged, and the reason is found below.
      const redeemed = await ctx
        .unitOfWork(async (sql) => {
          const session = await sessionStore.redeem(
            sql,
            input.sessionId,
            input.clientId,
            input.codeChallenge,
            since,
            now,
          );
          if (!session) throw NOT_REDEEMED;
          return {
            sessionId: session.id,
            oauthSessionId: session.oauthSessionId,
            ...(await storedResultOf(services, ctx.tenantId, session, sql)),
          };
        })
        .catch((error: unknown) => {
          if (error === NOT_REDEEMED) return null;
          throw error;
        });
      if (redeemed) return redeemed;

      // Why not: answered with the code that fits, checked in this order.
      const session = await readSession(services, ctx.tenantId, { id: input.sessionId });
      if (session.status === 'EXPIRED') throw sessionExpired();
      if (session.status !== 'COMPLETED')
        throw invalidSessionState(
          `The session is ${session.status}; only a COMPLETED session can be redeemed.`,
          session.status,
        );
      if (session.redeemedAt) throw invalidSessionState('The session was already redeemed.', session.status);
      if (!same(session.boundClientId, input.clientId) || !same(session.boundCodeChallenge, input.codeChallenge)) {
        throw invalidSessionState('The session is not bound to this authorization request.', session.status);
      }
      throw sessionExpired('The session completed too long ago to be redeemed.');
    },
  });
