import { commandContext, type RoleApp } from '@tessera/platform';
import { SessionParams } from '../../http/schemas.js';
import type { BridgeServices } from '../../services.js';
import { getIdvStatus } from '../commands/get-idv-status.js';
import { initiateIdv } from '../commands/initiate-idv.js';
import { receiveIdvCallback } from '../commands/receive-idv-callback.js';
import { submitIdv } from '../commands/submit-idv.js';
import { IDV_CALLBACK_PATH, IdvServices } from '../idv-services.js';
import { portalLook } from '../../http/portal-look.js';
import { callbackPageCsp, invalidStatePage } from './callback-page.js';
import { locateCallback } from './callback-context.js';
import { InitiateIdvResponse, IdvStatusResponse, SubmitIdvBody, SubmitIdvResponse } from './idv-schemas.js';

/**
 * The IDV API (000 §4.2). initiate, status and submit are service-to-service like the session API (the portal
 * backend's bearer token with `sessionClientsScope`); the callback is reached by the browser coming back from the
 * provider: no token, the tenant of the attempt its state names, rate limited per address, never cached, and no
 * Referer leaves it (its URL carries the code).
 */
export function registerIdvRoutes(app: RoleApp, services: BridgeServices): IdvServices {
  const idv = new IdvServices(services);
  if (!idv.configured)
    services.platform.logger.warn(
      { config_key: 'bridge.idv.provider' },
      'identity verification is not configured: the IDV endpoints answer 503',
    );
  const bus = services.platform.commands;
  const commands = {
    initiate: initiateIdv(idv),
    callback: receiveIdvCallback(idv),
    status: getIdvStatus(idv),
    submit: submitIdv(idv),
  };
  const tags = ['identity verification'];
  const noStore = { 'cache-control': 'no-store' };

  app.post(
    '/auth/oid4vp/sessions/:sessionId/idv/initiate',
    { schema: { tags, params: SessionParams, response: { 200: InitiateIdvResponse } } },
    async (request, reply) =>
      reply
        .headers(noStore)
        .send(await bus.execute(commands.initiate, commandContext(request), { sessionId: request.params.sessionId })),
  );

  app.get(
    '/auth/oid4vp/sessions/:sessionId/idv/status',
    { schema: { tags, params: SessionParams, response: { 200: IdvStatusResponse } } },
    async (request, reply) =>
      reply
        .headers(noStore)
        .send(await bus.execute(commands.status, commandContext(request), { sessionId: request.params.sessionId })),
  );

  app.post(
    '/auth/oid4vp/sessions/:sessionId/idv/submit',
    { schema: { tags, params: SessionParams, body: SubmitIdvBody, response: { 200: SubmitIdvResponse } } },
    async (request, reply) =>
      reply.headers(noStore).send(
        await bus.execute(commands.submit, commandContext(request), {
          sessionId: request.params.sessionId,
          confirmed: request.body.confirmed,
          selectedMatchId: request.body.selectedMatchId,
        }),
      ),
  );

  app.get(IDV_CALLBACK_PATH, { config: { auth: 'none', tenant: 'none' }, schema: { tags } }, async (request, reply) => {
    reply.headers({ ...noStore, 'referrer-policy': 'no-referrer', 'x-content-type-options': 'nosniff' });
    const rawQuery = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
    const query = new URLSearchParams(rawQuery);
    const located = await locateCallback(idv, request, query);
    const outcome = located
      ? await bus.execute(commands.callback, located.ctx, {
          reconciliationId: located.reconciliationId,
          stateId: located.stateId,
          state: located.state,
          query,
        })
      : ({ kind: 'invalid_state' } as const);
    if (outcome.kind === 'invalid_state') {
      const look = portalLook(idv.config.portalUrl);
      return reply
        .status(400)
        .header('content-security-policy', callbackPageCsp(look.origin))
        .type('text/html; charset=utf-8')
        .send(invalidStatePage(look));
    }
    // 303: the browser follows with a GET, whatever brought it here (RFC 9110 §15.4.4).
    return reply.status(303).header('location', outcome.location).send();
  });
  return idv;
}
