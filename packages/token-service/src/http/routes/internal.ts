import Type from 'typebox';
import { commandContext, type RoleApp } from '@tessera/platform';
import type { TokenServiceContext } from '../../context.js';
import { checkAuthorizationRequestCommand } from '../../commands/check-authorization-request.js';

const Params = Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 4096 }), { maxProperties: 50 });

/**
 * Service-to-service endpoints of the internal port (8080) only: never exposed through the public gateway.
 * `POST /internal/v1/authorization-requests/check` takes the relying party's authorization parameters as a JSON
 * object and answers whether GET /authorize would accept them.
 */
export function registerInternalRoutes(app: RoleApp, ctx: TokenServiceContext): void {
  const check = checkAuthorizationRequestCommand(ctx);
  app.post(
    '/internal/v1/authorization-requests/check',
    { config: { family: 'oauth' }, schema: { body: Params, tags: ['internal'] } },
    async (request) =>
      ctx.platform.commands.execute(check, commandContext(request), { params: new URLSearchParams(request.body) }),
  );
}
