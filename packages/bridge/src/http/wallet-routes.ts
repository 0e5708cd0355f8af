import { AppError, type RoleApp } from '@tessera/platform';
import { fetchRequestObject } from '../commands/fetch-request-object.js';
import { receiveResponse } from '../commands/receive-response.js';
import { REQUEST_OBJECT_CONTENT_TYPE } from '../domain/request-object.js';
import type { BridgeServices } from '../services.js';
import { registerFormBody } from './form-body.js';
import { RequestParams, ResponseBody } from './schemas.js';
import { walletContext } from './wallet-context.js';

/**
 * The wallet's endpoints (OID4VP §5.7 request_uri, §8.2 response_uri): no authentication (route auth `none`), the
 * tenant taken from the session (wallet-context.ts), rate limited per address, never a 3xx (§14.8), never cached.
 */
export async function registerWalletRoutes(app: RoleApp, services: BridgeServices): Promise<void> {
  const bus = services.platform.commands;
  const commands = { fetch: fetchRequestObject(services), receive: receiveResponse(services) };
  const config = { auth: 'none' as const, tenant: 'none' as const };
  const tags = ['wallet'];

  await app.register(async (scope: RoleApp) => {
    registerFormBody(scope);

    scope.get(
      '/auth/oid4vp/requests/:requestId',
      { config, schema: { tags, params: RequestParams } },
      async (request, reply) => {
        const ctx = await walletContext(services, request, { requestId: request.params.requestId });
        const { requestObject } = await bus.execute(commands.fetch, ctx, { requestId: request.params.requestId });
        return reply.type(REQUEST_OBJECT_CONTENT_TYPE).header('cache-control', 'no-store').send(requestObject);
      },
    );

    scope.post(
      '/auth/oid4vp/responses/:requestId',
      { config, schema: { tags, params: RequestParams, body: ResponseBody } },
      async (request, reply) => {
        if (
          !String(request.headers['content-type'] ?? '')
            .toLowerCase()
            .startsWith('application/x-www-form-urlencoded')
        ) {
          throw new AppError('unsupported_media_type', 'The response is sent as application/x-www-form-urlencoded.');
        }
        const ctx = await walletContext(services, request, { requestId: request.params.requestId });
        await bus.execute(commands.receive, ctx, { requestId: request.params.requestId, body: request.body });
        return reply.header('cache-control', 'no-store').send({});
      },
    );
  });
}
