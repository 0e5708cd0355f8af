import type { Sql } from '../../db/database.js';
import type { CircuitState, Destination, DestinationProtocol } from '../domain/delivery.js';

interface DestinationRow {
  id: string;
  url: string;
  enabled: boolean;
  event_types: string[];
  created_at: Date | string;
  circuit_state: CircuitState;
  consecutive_failures: number;
  opened_at: Date | string | null;
}

const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());

const toDestination = (r: DestinationRow): Destination => ({
  id: r.id,
  url: r.url,
  enabled: r.enabled,
  eventTypes: r.event_types,
  createdAt: iso(r.created_at)!,
  circuit: { state: r.circuit_state, consecutiveFailures: r.consecutive_failures, openedAt: iso(r.opened_at) },
});

const COLUMNS = `id, url, enabled, event_types, created_at, circuit_state, consecutive_failures, opened_at`;

/** Destinations of the unit of work's tenant (row-level security applies the tenant). */
export async function insertDestination(
  sql: Sql,
  d: {
    id: string;
    url: string;
    sealedSecret: string;
    enabled: boolean;
    eventTypes: readonly string[];
    protocol?: DestinationProtocol;
    /** The service that writes this destination's deliveries itself; `enqueue` then leaves it out. */
    managedBy?: string;
  },
): Promise<Destination> {
  const { rows } = await sql.query<DestinationRow>(
    `INSERT INTO webhook_destinations (id, url, sealed_secret, enabled, event_types, protocol, managed_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     RETURNING ${COLUMNS}`,
    [d.id, d.url, d.sealedSecret, d.enabled, d.eventTypes, d.protocol ?? 'standard-webhooks', d.managedBy ?? null],
  );
  return toDestination(rows[0]!);
}

/**
 * The tenant's webhook destinations. Destinations a service manages itself (an SSF stream's, an event
 * forwarder's) are not webhooks: they are listed, exported and deleted through their own API.
 */
export async function listDestinations(sql: Sql): Promise<Destination[]> {
  const { rows } = await sql.query<DestinationRow>(
    `SELECT ${COLUMNS} FROM webhook_destinations WHERE managed_by IS NULL ORDER BY created_at, id`,
  );
  return rows.map(toDestination);
}

/** Tenant scope: points a destination at another URL (an SSF stream's `endpoint_url` changed). */
export async function updateDestinationUrl(sql: Sql, id: string, url: string): Promise<boolean> {
  const { rowCount } = await sql.query(`UPDATE webhook_destinations SET url = $2 WHERE id = $1`, [id, url]);
  return rowCount > 0;
}

export async function deleteDestination(sql: Sql, id: string): Promise<boolean> {
  const { rowCount } = await sql.query(`DELETE FROM webhook_destinations WHERE id = $1 AND managed_by IS NULL`, [id]);
  return rowCount > 0;
}

/** Platform scope: the sealed secret of one destination (for the delivery job). */
export async function readSealedSecret(sql: Sql, tenantId: string, id: string): Promise<string | null> {
  const { rows } = await sql.query<{ sealed_secret: string }>(
    `SELECT sealed_secret FROM webhook_destinations WHERE tenant_id = $1 AND id = $2`,
    [tenantId, id],
  );
  return rows[0]?.sealed_secret ?? null;
}

/** Platform scope: every destination's circuit state (the circuit gauge). */
export async function circuitStates(
  sql: Sql,
): Promise<{ tenant_id: string; id: string; circuit_state: CircuitState }[]> {
  return (
    await sql.query<{ tenant_id: string; id: string; circuit_state: CircuitState }>(
      `SELECT tenant_id, id, circuit_state FROM webhook_destinations`,
    )
  ).rows;
}
