import type { JobDefinition, Platform, RoleApp } from '@tessera/platform';
import type { TenantUnit } from '@tessera/identity';
import { completeSessionAfterIdv } from '../commands/complete-session-after-idv.js';
import type { CompletionResult } from '../domain/session.js';
import { bridgeJobs } from '../jobs.js';
import { createBridgeServices, type BridgeDeps, type BridgeServices } from '../services.js';
import { registerQrRoutes } from './qr-routes.js';
import { registerSessionRoutes } from './session-routes.js';
import { registerWalletRoutes } from './wallet-routes.js';
import { registerIdvRoutes } from '../idv/http/idv-routes.js';
import { registerReconciliationApi } from '../reconciliation/register.js';

/** What registration hands back to the composition root and to the IDV flow. */
export interface BridgeHandle {
  services: BridgeServices;
  /** To register with `platform.jobs` once per process. */
  jobs: JobDefinition[];
  completeSessionAfterIdv(unit: TenantUnit, sessionId: string, identityId: string): Promise<CompletionResult>;
}

/**
 * The bridge on its role app (000 §4.1): the session API, the wallet's request and response endpoints, the QR
 * page. Refuses, at start, a configuration that cannot sign a valid request (production without a certificate, a
 * certificate for another key or host), and announces the generated development certificate as a development default.
 */
export async function registerBridgeRoutes(
  app: RoleApp,
  platform: Platform,
  deps: BridgeDeps & { services?: BridgeServices },
): Promise<BridgeHandle> {
  const services = deps.services ?? createBridgeServices(platform, deps);
  services.signer.assertConfigured();
  // A configured chain is checked against the key now, so that a wrong one stops the start with the key's name
  // instead of failing the first session.
  const { requestSigning, clientIdPrefix } = services.config;
  if (requestSigning.certificateChainPem && clientIdPrefix !== 'decentralized_identifier')
    await services.signer.current();
  if (services.signer.generatesCertificate) {
    const note = `generated self-signed request-signing certificate for ${services.signer.host}`;
    if (!platform.developmentDefaults.includes(note)) platform.developmentDefaults.push(note);
  }
  for (const query of services.queries.values()) {
    for (const credential of query.credentials) {
      if (credential.trustedIssuers.length === 0)
        platform.logger.warn(
          { query_id: query.id, credential_query_id: credential.id },
          'presentation query has no trusted issuer: every presentation will be refused',
        );
    }
  }
  registerSessionRoutes(app, services);
  await registerWalletRoutes(app, services);
  registerQrRoutes(app, services);
  registerIdvRoutes(app, services);
  // The external reconciliation API (000 §4.3), unless bridge.reconciliation.enabled is false.
  await registerReconciliationApi(app, services);
  return {
    services,
    jobs: bridgeJobs(services),
    completeSessionAfterIdv: (unit, sessionId, identityId) =>
      completeSessionAfterIdv(services, unit, sessionId, identityId),
  };
}
