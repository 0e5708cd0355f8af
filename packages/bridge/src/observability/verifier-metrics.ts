import { registeredCounter, registeredHistogram, type Metrics } from '@tessera/platform';

/** How one presentation ended: verified, refused by a check, an error answer of the wallet, or an internal error. */
export type PresentationResult = 'verified' | 'rejected' | 'wallet_error' | 'error';

/**
 * Verifier query metrics (001 §4.5): presentations received per DCQL query id and result, and the time their
 * verification took (decryption, response parsing, every credential check, status lists). Query ids come from the
 * configuration, so the label stays bounded.
 */
export class VerifierMetrics {
  private readonly presentations;
  private readonly duration;

  constructor(metrics: Metrics) {
    this.presentations = registeredCounter(metrics, {
      name: 'verifier_presentations_total',
      help: 'Presentations received by the verifier, by DCQL query id and result.',
      labelNames: ['query_id', 'result'],
    });
    this.duration = registeredHistogram(metrics, {
      name: 'verifier_verification_duration_seconds',
      help: 'Verification time of one presentation, by DCQL query id and result.',
      labelNames: ['query_id', 'result'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    });
  }

  observe(queryId: string, result: PresentationResult, seconds: number): void {
    this.presentations.inc({ query_id: queryId, result });
    this.duration.observe({ query_id: queryId, result }, seconds);
  }
}

const byMetrics = new WeakMap<Metrics, VerifierMetrics>();

/** The verifier metrics of a process's registry. */
export function verifierMetrics(metrics: Metrics): VerifierMetrics {
  let m = byMetrics.get(metrics);
  if (!m) {
    m = new VerifierMetrics(metrics);
    byMetrics.set(metrics, m);
  }
  return m;
}
