import { readFileSync } from 'node:fs';
import type { RoleApp } from '@tessera/platform';

/** Static files, read once at registration. They belong to no tenant and are not rate limited (like /health). */
const ASSETS = [
  { path: '/assets/signin.js', file: 'signin.js', type: 'text/javascript; charset=utf-8' },
  { path: '/assets/portal.css', file: 'portal.css', type: 'text/css; charset=utf-8' },
  // Browsers ask for /favicon.ico on their own; the bridge's pages link it too.
  { path: '/favicon.ico', file: 'favicon.ico', type: 'image/x-icon' },
];

export function registerAssetRoutes(app: RoleApp): void {
  for (const asset of ASSETS) {
    const body = readFileSync(new URL(`../assets/${asset.file}`, import.meta.url));
    app.get(
      asset.path,
      { config: { tenant: 'none', rateLimit: false, auth: 'none' }, schema: { hide: true } },
      async (_request, reply) =>
        reply
          .type(asset.type)
          .header('cache-control', 'public, max-age=300')
          .header('x-content-type-options', 'nosniff')
          .send(body),
    );
  }
}
