import { commandContext, renderError, type RoleApp } from '@tessera/platform';
import { SessionStateError } from '../commands/errors.js';
import { completeSession } from '../commands/complete-session.js';
import { createSession } from '../commands/create-session.js';
import { getSessionStatus } from '../commands/get-session-status.js';
import { redeemSession } from '../commands/redeem-session.js';
import type { BridgeServices } from '../services.js';
import {
  CompletionResponse,
  CreateSessionBody,
  CreateSessionResponse,
  IdvRequiredResponse,
  RedeemBody,
  RedeemConflictResponse,
  RedeemResponse,
  SessionParams,
  SessionStatusResponse,
} from './schemas.js';

/**
 * The presentation session API (000 §4.1), service-to-service (§5): each command requires the configured scope of
 * the caller's bearer token (the portal backend's; the token service's for redeem).
 */
export function registerSessionRoutes(app: RoleApp, services: BridgeServices): void {
  const bus = services.platform.commands;
  const commands = {
    create: createSession(services),
    status: getSessionStatus(services),
    complete: completeSession(services),
    redeem: redeemSession(services),
  };
  const tags = ['presentation sessions'];
  const noStore = { 'cache-control': 'no-store' };

  app.post(
    '/auth/oid4vp/sessions',
    { schema: { tags, body: CreateSessionBody, response: { 200: CreateSessionResponse } } },
    async (request, reply) =>
      reply.headers(noStore).send(await bus.execute(commands.create, commandContext(request), request.body)),
  );

  app.get(
    '/auth/oid4vp/sessions/:sessionId/status',
    { schema: { tags, params: SessionParams, response: { 200: SessionStatusResponse } } },
    async (request, reply) =>
      reply
        .headers(noStore)
        .send(await bus.execute(commands.status, commandContext(request), { sessionId: request.params.sessionId })),
  );

  app.post(
    '/auth/oid4vp/sessions/:sessionId/complete',
    { schema: { tags, params: SessionParams, response: { 200: CompletionResponse, 202: IdvRequiredResponse } } },
    async (request, reply) => {
      const result = await bus.execute(commands.complete, commandContext(request), {
        sessionId: request.params.sessionId,
      });
      return reply.status(result.status).headers(noStore).send(result.body);
    },
  );

  app.post(
    '/auth/oid4vp/sessions/:sessionId/redeem',
    {
      schema: {
        tags: ['token service'],
        params: SessionParams,
        body: RedeemBody,
        response: { 200: RedeemResponse, 409: RedeemConflictResponse },
      },
    },
    async (request, reply) => {
      try {
        const result = await bus.execute(commands.redeem, commandContext(request), {
          sessionId: request.params.sessionId,
          ...request.body,
        });
        return reply.headers(noStore).send(result);
      } catch (error) {
        // Extension: a 409 of redeem also names the session's status, so the token service can tell a session
        // still on its way to COMPLETED (wait) from one that will never be redeemable here (refuse).
        if (!(error instanceof SessionStateError) || error.sessionStatus === null) throw error;
        const body = renderError('oauth', error) as { error: string; error_description: string };
        return reply
          .status(409)
          .headers(noStore)
          .send({ ...body, status: error.sessionStatus });
      }
    },
  );
}
