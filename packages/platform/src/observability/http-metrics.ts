import type client from 'prom-client';
import { SeriesMetrics, type MetricSeries } from './series-metrics.js';

/** Upper bounds (seconds) of the HTTP latency histogram. */
export const HTTP_DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] as const;

/** The series of one role, method and route template: what one request adds to the HTTP metrics. */
export type HttpRouteSeries = MetricSeries<{ role: string; method: string; route: string }>;

/**
 * `http_requests_total` (by status) and `http_request_duration_seconds` (001 §4.5), kept per route series without
 * prom-client's per-call label hashing (series-metrics.ts). A request records `series.record(status, seconds)`.
 */
export class HttpMetrics {
  private readonly metrics: SeriesMetrics<{ role: string; method: string; route: string }>;

  constructor(registry: client.Registry) {
    this.metrics = new SeriesMetrics(registry, {
      counter: {
        name: 'http_requests_total',
        help: 'HTTP requests by role, method, route template and status.',
        outcomeLabel: 'status',
      },
      histogram: {
        name: 'http_request_duration_seconds',
        help: 'HTTP request latency by role, method and route template.',
        buckets: HTTP_DURATION_BUCKETS,
      },
    });
  }

  /** The series of a role, method and route (made on first use; callers keep it per route). */
  route(role: string, method: string, route: string): HttpRouteSeries {
    return this.metrics.series(`${role} ${method} ${route}`, () => ({ role, method, route }));
  }
}
