import type { RoleApp } from '@tessera/platform';
import { createPortalRuntime } from './flow/runtime.js';
import { registerAssetRoutes } from './http/asset-routes.js';
import { registerConfirmAccountRoutes } from './http/confirm-account-routes.js';
import { pageHandler, sendPage } from './http/page-reply.js';
import { PAGE_ROUTE, registerSigninRoutes } from './http/signin-routes.js';
import { registerVerificationRoutes } from './http/verification-routes.js';
import { resolvePortalOptions, type PortalDeps } from './options.js';
import { messagePage } from './pages/other-pages.js';

/**
 * The portal role (port 3000): the sign-in pages a relying party sends the browser to, and the backend that drives the
 * bridge and hands over to the token service (flows.md "Wallet login"). Throws at registration on a bad URL or
 * missing service credentials.
 */
export async function registerPortalRoutes(app: RoleApp, deps: PortalDeps): Promise<void> {
  const rt = createPortalRuntime(resolvePortalOptions(deps));

  // 000 §4.5: the portal frontend's health, 200 {"status":"ok"}; operational, so no tenant and no rate limit.
  app.get(
    '/api/health',
    { config: { tenant: 'none', rateLimit: false, auth: 'none' }, schema: { hide: true } },
    async (_request, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }),
  );
  registerAssetRoutes(app);
  registerSigninRoutes(app, rt);
  await registerVerificationRoutes(app, rt);
  await registerConfirmAccountRoutes(app, rt);

  // Someone who opens the portal by hand learns where a sign-in starts.
  app.get(
    '/',
    { config: PAGE_ROUTE, schema: { hide: true } },
    pageHandler(async (_request, reply, { language, t }) =>
      sendPage(
        reply,
        200,
        language,
        messagePage({ language, t, title: t('portalName'), paragraphs: [], restartHref: null }),
      ),
    ),
  );
}
