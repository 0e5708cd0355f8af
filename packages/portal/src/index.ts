/**
 * The sign-in portal (flows.md "Wallet login"): `registerPortalRoutes` on the portal role app (port 3000). See
 * README.md for the routes, the pages and the wiring the composition root needs.
 */
export { registerPortalRoutes } from './register.js';
export { resolvePortalOptions, DEFAULT_SERVICE_SCOPE, type PortalDeps, type PortalOptions } from './options.js';
export { negotiateLanguage, LANGUAGES, type Language } from './i18n/negotiate.js';
