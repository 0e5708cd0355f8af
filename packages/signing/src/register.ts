import type { Platform, RoleApp } from '@tessera/platform';
import type { SigningConfig } from './config.js';
import { registerSigningApiRoutes } from './http/routes.js';
import { createSigningServices, type SigningServices } from './services.js';

export interface SigningDeps {
  config: SigningConfig;
}

/**
 * Registers the signing API (002 §4.1) on the `signing` role app; the key providers are closed with the app
 * (a PKCS #11 module is finalized).
 */
export function registerSigningRoutes(app: RoleApp, platform: Platform, deps: SigningDeps): SigningServices {
  const services = createSigningServices(platform, deps.config);
  registerSigningApiRoutes(app, services);
  app.addHook('onClose', async () => services.providers.close());
  return services;
}
