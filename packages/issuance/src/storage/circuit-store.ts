import { circuitBreaker, type Sql } from '@tessera/platform';

/** The platform's breaker (outbound/storage/breaker-store.ts) on the connector circuits table (0003). */
const TABLE = 'issuance_connector_circuits';

export type CircuitState = 'closed' | 'open' | 'half_open';

/** SQL of the circuit per connector destination; runs in the caller's tenant unit of work. */
export const circuitStore = {
  /**
   * Whether a request may go to this connector now: closed yes; open, past its cool-down, yes for the one replica
   * that takes the half-open probe slot; otherwise no (the circuit holds it).
   */
  async admit(
    sql: Sql,
    tenantId: string,
    connectorId: string,
    now: Date,
    cooldownMs: number,
    probeLeaseMs: number,
  ): Promise<{ admitted: boolean; state: CircuitState }> {
    await sql.query(`INSERT INTO ${TABLE} (id) VALUES ($1) ON CONFLICT DO NOTHING`, [connectorId]);
    const { rows } = await sql.query<{ circuit_state: CircuitState }>(
      `SELECT circuit_state FROM ${TABLE} WHERE id = $1`,
      [connectorId],
    );
    const state = rows[0]?.circuit_state ?? 'closed';
    if (state === 'closed') return { admitted: true, state };
    const probe = await circuitBreaker.takeProbeSlots(sql, now, cooldownMs, probeLeaseMs, {
      table: TABLE,
      only: { tenantId, id: connectorId },
    });
    return probe.length === 1 ? { admitted: true, state: 'half_open' } : { admitted: false, state };
  },

  success: (sql: Sql, tenantId: string, connectorId: string) =>
    circuitBreaker.recordSuccess(sql, tenantId, connectorId, { table: TABLE }),

  failure: (sql: Sql, tenantId: string, connectorId: string, now: Date, threshold: number) =>
    circuitBreaker.recordFailure(sql, tenantId, connectorId, now, threshold, { table: TABLE }),

  /** Every circuit of every tenant (metrics at scrape time; outside row-level security). */
  async all(sql: Sql): Promise<{ tenant_id: string; id: string; circuit_state: CircuitState }[]> {
    const { rows } = await sql.query<{ tenant_id: string; id: string; circuit_state: CircuitState }>(
      `SELECT tenant_id, id, circuit_state FROM ${TABLE}`,
    );
    return rows;
  },
};
