import { StagedAuditEvents, type Sql } from '@tessera/platform';
import { failureMessage, type IdvFailureReason } from '../domain/failure-reasons.js';
import { reconciliationMove } from '../domain/reconciliation-state.js';
import type { IdvServices } from '../idv-services.js';
import { reconciliationStore, type Reconciliation } from '../storage/reconciliation-store.js';
import { idvFailedEvent } from './idv-audit.js';

/**
 * 000 §3.2 "any non-terminal → ERROR": the attempt keeps its reason and errorMessage, and loses its sealed material
 * (PKCE verifier, a verified login awaiting its recording). Null when the attempt had already left the open states.
 */
export function markFailed(sql: Sql, id: string, reason: IdvFailureReason, at: Date): Promise<Reconciliation | null> {
  return reconciliationStore.transition(sql, id, reconciliationMove('failed').from, 'ERROR', at, {
    errorReason: reason,
    errorMessage: failureMessage(reason),
    pkceSealed: null,
    outcomeSealed: null,
  });
}

/**
 * Runs one unit of work of the tenant: the command's (`ExecutionContext.unitOfWork`, which stages the command's own
 * audit event in it) or, by default, a transaction of its own (ownUnit).
 */
export type UnitRunner = <T>(fn: (sql: Sql) => Promise<T>) => Promise<T>;

export const ownUnit =
  (idv: IdvServices, tenantId: string): UnitRunner =>
  (fn) =>
    idv.bridge.platform.db.withTenant(tenantId, fn);

/**
 * markFailed in a unit of work (`unit`: by default one of its own), with the session_failed audit event staged in it
 * (issue 13 §7).
 */
export async function failReconciliation(
  idv: IdvServices,
  tenantId: string,
  id: string,
  reason: IdvFailureReason,
  unit: UnitRunner = ownUnit(idv, tenantId),
): Promise<Reconciliation | null> {
  const now = idv.bridge.clock.now();
  const events = new StagedAuditEvents(idv.bridge.platform.audit);
  const failed = await unit(async (sql) => {
    const moved = await markFailed(sql, id, reason, now);
    if (moved) await events.stage(sql, idvFailedEvent(idv, tenantId, moved, reason));
    return moved;
  });
  await events.chain();
  return failed;
}

/** Additional authenticated data of a sealed field of an attempt: it opens only on that attempt of that tenant. */
export const reconciliationAad = (tenantId: string, id: string, field: 'pkce' | 'outcome') =>
  JSON.stringify(['bridge_idv_reconciliations', tenantId, id, field]);
