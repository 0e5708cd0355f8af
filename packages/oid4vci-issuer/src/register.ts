import { getGlobalConfig, setGlobalConfig } from '@openid4vc/utils';
import { ConfigError, type Platform, type RoleApp } from '@tessera/platform';
import type { Oid4vciConfig } from './config.js';
import { registerBackendOfferRoutes } from './http/backend-routes.js';
import { registerWalletRoutes, registerWebappOfferRoute } from './http/routes.js';
import { createOid4vciServices, type Oid4vciDeps } from './services.js';

/**
 * Registers the OpenID4VCI issuer on the `issuance` role app (beside the pipeline backend): the wallet-facing
 * endpoints under each bound credential issuer, and the offer endpoints.
 */
export async function registerOid4vciRoutes(app: RoleApp, platform: Platform, deps: Oid4vciDeps): Promise<void> {
  allowLoopbackIssuers(deps.config, platform.config.profile);
  const s = createOid4vciServices(platform, deps);
  await app.register(async (scope: RoleApp) => {
    registerWalletRoutes(scope, s);
    registerWebappOfferRoute(scope, s);
    registerBackendOfferRoutes(scope, s);
  });
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Credential issuers are https URLs (OpenID4VCI 1.0 §12.2.1). Plain http is kept for a loopback host outside
 * production (development, tests): the @openid4vc libraries then need their process-wide `allowInsecureUrls`.
 */
function allowLoopbackIssuers(config: Oid4vciConfig, profile: string): void {
  let loopbackHttp = false;
  for (const [tenant, binding] of Object.entries(config.tenants)) {
    const url = new URL(binding.credentialIssuer);
    if (url.protocol === 'https:') continue;
    if (profile !== 'production' && url.protocol === 'http:' && LOOPBACK.has(url.hostname)) loopbackHttp = true;
    else
      throw new ConfigError(
        `oid4vci.tenants.${tenant}.credentialIssuer`,
        'must be an https URL (http only on a loopback host outside production)',
      );
  }
  if (loopbackHttp) setGlobalConfig({ ...getGlobalConfig(), allowInsecureUrls: true });
}
