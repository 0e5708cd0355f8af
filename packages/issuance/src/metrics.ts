import client from 'prom-client';
import type { Platform } from '@tessera/platform';
import { circuitStore } from './storage/circuit-store.js';

const CIRCUIT_VALUE = { closed: 0, half_open: 1, open: 2 } as const;

/**
 * Pipeline metrics (001 §4.5 "pipeline (phase and source duration, deferral rates)"), on the platform's registry;
 * made once per registry (several services of one process share them):
 * - issuance_phase_duration_seconds{phase}: one `advance` into a phase, its synchronous connectors included (bounded
 *   by syncWaitWindow);
 * - issuance_connector_duration_seconds{connector, outcome}: one request to a connector (the "source");
 * - issuance_phase_advances_total{phase} and issuance_deferrals_total: the deferral rate is
 *   rate(issuance_deferrals_total) / rate(issuance_phase_advances_total{phase="OID4VCI_CREDENTIAL_REQUEST"});
 * - issuance_connector_failures_total{connector, kind}: invocations that failed, by kind;
 * - issuance_connector_circuit_state{tenant, connector}: 0 closed, 1 half-open, 2 open, read from the database at
 *   scrape time so that every replica reports the shared state.
 * Connector ids are configuration (bounded), never input.
 */
export class PipelineMetrics {
  readonly phaseDuration: client.Histogram<'phase'>;
  readonly connectorDuration: client.Histogram<'connector' | 'outcome'>;
  readonly advances: client.Counter<'phase'>;
  readonly deferrals: client.Counter;
  readonly connectorFailures: client.Counter<'connector' | 'kind'>;

  constructor(platform: Platform) {
    const registry = platform.metrics.registry;
    const registers = [registry];
    const existing = <T>(name: string) => registry.getSingleMetric(name) as T | undefined;
    this.phaseDuration =
      existing<client.Histogram<'phase'>>('issuance_phase_duration_seconds') ??
      new client.Histogram({
        name: 'issuance_phase_duration_seconds',
        help: 'Duration of entering a pipeline phase, its synchronous connectors included, by phase.',
        labelNames: ['phase'],
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers,
      });
    this.connectorDuration =
      existing<client.Histogram<'connector' | 'outcome'>>('issuance_connector_duration_seconds') ??
      new client.Histogram({
        name: 'issuance_connector_duration_seconds',
        help: 'Duration of one request to a pipeline connector (source), by connector and outcome.',
        labelNames: ['connector', 'outcome'],
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers,
      });
    this.advances =
      existing<client.Counter<'phase'>>('issuance_phase_advances_total') ??
      new client.Counter({
        name: 'issuance_phase_advances_total',
        help: 'Sessions advanced into a phase by the wallet-facing issuer, by phase.',
        labelNames: ['phase'],
        registers,
      });
    this.deferrals =
      existing<client.Counter>('issuance_deferrals_total') ??
      new client.Counter({
        name: 'issuance_deferrals_total',
        help: 'Credential requests answered as deferred (sessions moved to DEFERRED).',
        registers,
      });
    this.connectorFailures =
      existing<client.Counter<'connector' | 'kind'>>('issuance_connector_failures_total') ??
      new client.Counter({
        name: 'issuance_connector_failures_total',
        help: 'Connector invocations that failed, by connector and failure kind.',
        labelNames: ['connector', 'kind'],
        registers,
      });
    if (!existing('issuance_connector_circuit_state'))
      new client.Gauge({
        name: 'issuance_connector_circuit_state',
        help: 'Circuit breaker state per pipeline connector destination: 0 closed, 1 half-open, 2 open.',
        labelNames: ['tenant', 'connector'],
        registers,
        async collect() {
          const rows = await platform.db.withPlatform((sql) => circuitStore.all(sql));
          this.reset();
          for (const r of rows) this.set({ tenant: r.tenant_id, connector: r.id }, CIRCUIT_VALUE[r.circuit_state]);
        },
      });
  }
}
