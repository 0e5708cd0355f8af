import type { CommandContext, FastifyRequest } from '@tessera/platform';
import { sessionNotFound } from '../commands/errors.js';
import type { BridgeServices } from '../services.js';
import { sessionStore } from '../storage/session-store.js';

/**
 * The command context of a wallet-facing or browser-facing route. These routes carry no token and the wallet
 * reaches the bridge at one public host for every tenant, so the tenant is the tenant of the session the path
 * names (request ids and session ids are random and unique across tenants), never a header or the host.
 */
export async function walletContext(
  services: BridgeServices,
  request: FastifyRequest,
  by: { requestId: string } | { sessionId: string },
): Promise<CommandContext> {
  const location = await services.platform.db.withPlatform((sql) =>
    'requestId' in by ? sessionStore.locateByRequestId(sql, by.requestId) : sessionStore.locateById(sql, by.sessionId),
  );
  if (!location || !services.platform.tenants.isActive(location.tenantId)) throw sessionNotFound();
  const s = request.state;
  const log = s.log.child({ tenant_id: location.tenantId });
  return { tenantId: location.tenantId, principal: null, correlationId: s.correlationId, trace: s.trace, log };
}
