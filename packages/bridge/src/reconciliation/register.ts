import type { RoleApp } from '@tessera/platform';
import type { BridgeServices } from '../services.js';
import { registerReconciliationRoutes } from './http/routes.js';
import { createReconciliationServices, type ReconciliationServices } from './services.js';

/**
 * The external reconciliation API on the bridge's role app (000 §4.3), unless `bridge.reconciliation.enabled` is
 * false: then nothing is registered and its paths answer 404. Prepares the sealing key of auxiliary data at start.
 */
export async function registerReconciliationApi(
  app: RoleApp,
  bridge: BridgeServices,
): Promise<ReconciliationServices | null> {
  if (!bridge.config.reconciliation.enabled) return null;
  const services = createReconciliationServices(bridge);
  await services.sealer.prepare();
  if (services.authenticator.configured === false)
    bridge.platform.logger.warn({}, 'no token issuer is configured: every reconciliation API request will be refused');
  else if (Object.keys(services.config.clients).length === 0)
    bridge.platform.logger.warn(
      {},
      'no reconciliation client is configured: every reconciliation API request will be refused',
    );
  await registerReconciliationRoutes(app, services);
  return services;
}
