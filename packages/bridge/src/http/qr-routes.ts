import { isAppError, type RoleApp } from '@tessera/platform';
import { getQrPage, getQrStatus } from '../commands/get-qr-page.js';
import type { BridgeServices } from '../services.js';
import { portalLook } from './portal-look.js';
import { pageNonce, qrPageCsp, renderQrPage } from './qr-page.js';
import { SessionParams } from './schemas.js';
import { walletContext } from './wallet-context.js';

/**
 * GET /auth/oid4vp/qr/{sessionId} (000 §4.1 qrPageUri), the standalone page, and the status it polls
 * (GET .../qr/{sessionId}/status: the status alone, public like the page; extension). Both take the tenant from
 * the session, carry no token, are rate limited per address.
 */
export function registerQrRoutes(app: RoleApp, services: BridgeServices): void {
  const bus = services.platform.commands;
  const commands = { page: getQrPage(services), status: getQrStatus(services) };
  const config = { auth: 'none' as const, tenant: 'none' as const };
  const tags = ['qr page'];

  app.get('/auth/oid4vp/qr/:sessionId', { config, schema: { tags, params: SessionParams } }, async (request, reply) => {
    const nonce = pageNonce();
    const look = portalLook(services.config.idv.portalUrl);
    reply
      .header('content-security-policy', qrPageCsp(nonce, services.config.qrPageFrameAncestors, look.origin))
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer');
    try {
      const ctx = await walletContext(services, request, { sessionId: request.params.sessionId });
      const model = await bus.execute(commands.page, ctx, { sessionId: request.params.sessionId });
      return reply.type('text/html; charset=utf-8').send(renderQrPage(model, nonce, look));
    } catch (error) {
      // A person reads this page: errors of the session are answered as a page, with their status.
      if (!isAppError(error) || error.status >= 500) throw error;
      return reply
        .status(error.status)
        .type('text/html; charset=utf-8')
        .send(
          errorPage(
            error.status === 404 ? 'This sign-in code is not known.' : 'This sign-in code can no longer be used.',
            look.head,
          ),
        );
    }
  });

  app.get(
    '/auth/oid4vp/qr/:sessionId/status',
    { config, schema: { tags, params: SessionParams } },
    async (request, reply) => {
      const ctx = await walletContext(services, request, { sessionId: request.params.sessionId });
      return reply
        .header('cache-control', 'no-store')
        .send(await bus.execute(commands.status, ctx, { sessionId: request.params.sessionId }));
    },
  );
}

function errorPage(message: string, head: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign in with your wallet</title>${head}</head><body><main><h1>Sign in with your wallet</h1><p role="alert">${message} Start the sign-in again.</p></main></body></html>`;
}
