import type { Sql } from '../../db/database.js';
import type { CircuitState } from '../domain/delivery.js';

/**
 * Where the breaker's state lives. `table`: another context's table with the same breaker columns (`tenant_id`,
 * `id`, `circuit_state`, `consecutive_failures`, `opened_at`, `probe_until`), e.g. the issuance pipeline's
 * connector circuits; default the webhook destinations. `only`: one destination (a synchronous caller probing the
 * circuit it is about to use) rather than every due one.
 */
export interface BreakerScope {
  table?: string;
  only?: { tenantId: string; id: string };
}

const tableOf = (scope: BreakerScope): string => {
  const table = scope.table ?? 'webhook_destinations';
  // An identifier, never input: checked so that no caller can turn it into SQL.
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(table)) throw new Error(`not a breaker table name: ${table}`);
  return table;
};

/**
 * The UPDATE that moves cooled-down circuits of `table` to half-open (without RETURNING, so that a caller may
 * narrow it), `now`, `cooldownMs` and `leaseMs` being parameter references. Shared by takeProbeSlots and the
 * outbox's housekeeping statement.
 */
export const takeProbeSlotsSql = (table: string, now: string, cooldownMs: string, leaseMs: string) =>
  `UPDATE ${table} SET circuit_state = 'half_open', probe_until = ${now}::timestamptz + ${leaseMs} * interval '1 millisecond'
      WHERE ((circuit_state = 'open' AND opened_at <= ${now}::timestamptz - ${cooldownMs} * interval '1 millisecond')
         OR (circuit_state = 'half_open' AND probe_until < ${now}::timestamptz))`;

/**
 * The circuit breaker per destination (001 §6), its state in the destination row so that every replica agrees.
 * Closed → open after `threshold` consecutive failures; open holds the destination's deliveries; after the
 * cool-down one replica moves it to half-open and takes the one probe slot (the row lock of this UPDATE makes
 * the move happen once: a concurrent replica re-reads the row after the first commits and no longer matches);
 * the probe's success closes it, its failure re-opens it. A probe slot whose replica died frees itself at
 * `probe_until`.
 */
export async function takeProbeSlots(
  sql: Sql,
  now: Date,
  cooldownMs: number,
  leaseMs: number,
  scope: BreakerScope = {},
): Promise<{ tenant_id: string; id: string }[]> {
  const only = scope.only ? ' AND tenant_id = $4 AND id = $5' : '';
  const { rows } = await sql.query<{ tenant_id: string; id: string }>(
    `${takeProbeSlotsSql(tableOf(scope), '$1', '$2', '$3')}${only} RETURNING tenant_id, id`,
    scope.only ? [now, cooldownMs, leaseMs, scope.only.tenantId, scope.only.id] : [now, cooldownMs, leaseMs],
  );
  return rows;
}

/** A probe that found nothing to send gives its slot back, so the next round may probe again. */
export async function releaseProbeSlot(
  sql: Sql,
  tenantId: string,
  id: string,
  scope: BreakerScope = {},
): Promise<void> {
  await sql.query(
    `UPDATE ${tableOf(scope)} SET probe_until = NULL WHERE tenant_id = $1 AND id = $2 AND circuit_state = 'half_open'`,
    [tenantId, id],
  );
}

export async function recordSuccess(
  sql: Sql,
  tenantId: string,
  id: string,
  scope: BreakerScope = {},
): Promise<CircuitState | null> {
  const { rows } = await sql.query<{ circuit_state: CircuitState }>(
    `UPDATE ${tableOf(scope)} SET circuit_state = 'closed', consecutive_failures = 0, opened_at = NULL, probe_until = NULL
      WHERE tenant_id = $1 AND id = $2 RETURNING circuit_state`,
    [tenantId, id],
  );
  return rows[0]?.circuit_state ?? null;
}

/** A failure counts; the threshold (or any failure of the half-open probe) opens the circuit. */
export function recordFailure(
  sql: Sql,
  tenantId: string,
  id: string,
  now: Date,
  threshold: number,
  scope: BreakerScope = {},
): Promise<CircuitState | null> {
  return recordFailures(sql, tenantId, id, now, threshold, 1, scope);
}

/**
 * `failures` consecutive failures at once (a delivery round's, in one statement): the same as as many
 * `recordFailure` calls in a row.
 */
export async function recordFailures(
  sql: Sql,
  tenantId: string,
  id: string,
  now: Date,
  threshold: number,
  failures: number,
  scope: BreakerScope = {},
): Promise<CircuitState | null> {
  const { rows } = await sql.query<{ circuit_state: CircuitState }>(
    `UPDATE ${tableOf(scope)} d SET
        consecutive_failures = d.consecutive_failures + $5,
        circuit_state = CASE WHEN d.circuit_state = 'half_open' OR d.consecutive_failures + $5 >= $4 THEN 'open'
                             ELSE d.circuit_state END,
        opened_at = CASE WHEN d.circuit_state = 'half_open' OR (d.circuit_state = 'closed' AND d.consecutive_failures + $5 >= $4)
                         THEN $3::timestamptz ELSE d.opened_at END,
        probe_until = NULL
      WHERE tenant_id = $1 AND id = $2 RETURNING circuit_state`,
    [tenantId, id, now, threshold, failures],
  );
  return rows[0]?.circuit_state ?? null;
}
