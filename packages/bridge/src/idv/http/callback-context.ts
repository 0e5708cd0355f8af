import type { CommandContext, FastifyRequest } from '@tessera/platform';
import type { IdvServices } from '../idv-services.js';
import { reconciliationStore } from '../storage/reconciliation-store.js';

/**
 * The callback carries no token and reaches one public host for every tenant: its tenant is the tenant of the
 * attempt its state names (ids are random UUIDs, unique across tenants), never a header or the host. Before any
 * tenant is known, the state must open and verify (idv-state.ts), be unexpired on the bridge's clock, name an
 * existing attempt of an active tenant, and name that attempt's own session and own state id: a state naming the
 * session of another attempt is refused like a forged one. The answer is null for all of these (the 400 page),
 * with nothing changed; the kind of refusal goes to the log, never the value.
 */
export interface LocatedCallback {
  ctx: CommandContext;
  reconciliationId: string;
  stateId: string;
  state: string;
}

export async function locateCallback(
  idv: IdvServices,
  request: FastifyRequest,
  query: URLSearchParams,
): Promise<LocatedCallback | null> {
  const log = request.state.log;
  const refuse = (kind: string) => {
    log.warn({ refusal: kind }, 'IDV callback state refused');
    return null;
  };
  const states = query.getAll('state');
  if (states.length !== 1 || query.getAll('code').length > 1) return refuse('state_missing_or_repeated');
  const state = states[0]!;
  const claims = await idv.states.decode(state);
  if (!claims) return refuse('state_invalid');
  if (idv.bridge.clock.now() >= claims.expiresAt) return refuse('state_expired');
  const location = await idv.bridge.platform.db.withPlatform((sql) =>
    reconciliationStore.locate(sql, claims.reconciliationId),
  );
  if (!location || !idv.bridge.platform.tenants.isActive(location.tenantId)) return refuse('attempt_unknown');
  if (location.sessionId !== claims.sessionId || location.stateId !== claims.stateId)
    return refuse('state_of_another_attempt');
  const s = request.state;
  return {
    ctx: {
      tenantId: location.tenantId,
      principal: null,
      correlationId: s.correlationId,
      trace: s.trace,
      log: s.log.child({ tenant_id: location.tenantId }),
    },
    reconciliationId: claims.reconciliationId,
    stateId: claims.stateId,
    state,
  };
}
