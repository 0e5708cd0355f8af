import type client from 'prom-client';

/** Upper bounds (seconds) of the HTTP latency histogram. */
export const HTTP_DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] as const;

/** The series of one role, method and route template: what one request adds to the HTTP metrics. */
export class HttpRouteSeries {
  /** Requests by status code. */
  readonly statuses = new Map<number, number>();
  /** Observations per bucket (not cumulative; the last slot is +Inf), their sum and count. */
  readonly buckets = new Float64Array(HTTP_DURATION_BUCKETS.length + 1);
  sum = 0;
  count = 0;

  constructor(readonly labels: { role: string; method: string; route: string }) {}

  record(status: number, seconds: number): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    let i = 0;
    while (i < HTTP_DURATION_BUCKETS.length && seconds > HTTP_DURATION_BUCKETS[i]!) i++;
    this.buckets[i]!++;
    this.sum += seconds;
    this.count++;
  }
}

type MetricValue = { value: number; labels: Record<string, string | number>; metricName?: string };

/**
 * `http_requests_total` and `http_request_duration_seconds` (001 §4.5), kept as plain numbers per route series and
 * turned into Prometheus values when the registry is read. prom-client's own counter and histogram hash their label
 * set on every increment and observation, about 1.3 µs per request together, a share of a simple route's cost that
 * a counter should not have. These two objects are registered with the prom-client registry like its own metrics
 * (name, help, type, aggregator, get), so /metrics renders them in the same text format.
 */
export class HttpMetrics {
  private readonly series = new Map<string, HttpRouteSeries>();

  constructor(registry: client.Registry) {
    const requests = {
      name: 'http_requests_total',
      help: 'HTTP requests by role, method, route template and status.',
      type: 'counter' as const,
      aggregator: 'sum' as const,
      get: async () => ({ ...requests, values: this.requestValues() }),
    };
    const duration = {
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by role, method and route template.',
      type: 'histogram' as const,
      aggregator: 'sum' as const,
      get: async () => ({ ...duration, values: this.durationValues() }),
    };
    registry.registerMetric(requests as unknown as client.Metric);
    registry.registerMetric(duration as unknown as client.Metric);
  }

  /** The series of a role, method and route (made on first use; callers keep it per route). */
  route(role: string, method: string, route: string): HttpRouteSeries {
    const key = `${role} ${method} ${route}`;
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = new HttpRouteSeries({ role, method, route })));
    return s;
  }

  private requestValues(): MetricValue[] {
    const values: MetricValue[] = [];
    for (const s of this.series.values()) {
      for (const [status, value] of s.statuses) values.push({ value, labels: { ...s.labels, status: String(status) } });
    }
    return values;
  }

  private durationValues(): MetricValue[] {
    const values: MetricValue[] = [];
    const name = 'http_request_duration_seconds';
    for (const s of this.series.values()) {
      let cumulative = 0;
      HTTP_DURATION_BUCKETS.forEach((le, i) => {
        cumulative += s.buckets[i]!;
        values.push({ value: cumulative, labels: { le, ...s.labels }, metricName: `${name}_bucket` });
      });
      values.push({ value: s.count, labels: { le: '+Inf', ...s.labels }, metricName: `${name}_bucket` });
      values.push({ value: s.sum, labels: s.labels, metricName: `${name}_sum` });
      values.push({ value: s.count, labels: s.labels, metricName: `${name}_count` });
    }
    return values;
  }
}
