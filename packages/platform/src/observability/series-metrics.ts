import type client from 'prom-client';

type MetricValue = { value: number; labels: Record<string, string | number>; metricName?: string };

/** One label set's share of a counter-and-histogram pair: what one request or execution adds. */
export class MetricSeries<L extends Record<string, string>> {
  /** Counts by outcome (a status code, a result). */
  readonly outcomes = new Map<string | number, number>();
  /** Observations per bucket (not cumulative; the last slot is +Inf), their sum and count. */
  readonly buckets: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: L,
    private readonly bounds: readonly number[],
  ) {
    this.buckets = new Float64Array(bounds.length + 1);
  }

  /** Counts one outcome and, when given, observes its duration (le is inclusive, as prom-client's). */
  record(outcome: string | number, seconds?: number): void {
    this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1);
    if (seconds === undefined) return;
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]!) i++;
    this.buckets[i]!++;
    this.sum += seconds;
    this.count++;
  }
}

export interface SeriesMetricsOptions {
  /**
   * `outcomeLabel`: the label the outcome of `record` is counted under; absent, the counter has the series' labels
   * only (the outcome is then part of them, as `result` is of kms_calls_total) and counts every record.
   */
  counter: { name: string; help: string; outcomeLabel?: string };
  histogram: { name: string; help: string; buckets: readonly number[] };
}

/**
 * A counter (by label set and outcome) and a histogram (by label set) kept as plain numbers per series, turned into
 * Prometheus values when the registry is read. prom-client's own counter and histogram hash their label set on every
 * increment and observation (about 1.3 µs per pair), a share of a simple request's cost that a counter should not
 * have; a caller here keeps its series object and records into it. Both are registered with the prom-client registry
 * like its own metrics (name, help, type, aggregator, get), so /metrics renders them in the same text format.
 */
export class SeriesMetrics<L extends Record<string, string>> {
  private readonly all = new Map<string, MetricSeries<L>>();
  /** The counter as a registered metric (`get()` gives its values, as prom-client's). */
  readonly counter: { get(): Promise<{ values: MetricValue[] }> };
  readonly histogram: { get(): Promise<{ values: MetricValue[] }> };

  constructor(
    registry: client.Registry,
    private readonly options: SeriesMetricsOptions,
  ) {
    this.counter = registerComputed(registry, options.counter, 'counter', () => this.counterValues());
    this.histogram = registerComputed(registry, options.histogram, 'histogram', () => this.histogramValues());
  }

  /** The series of a label set, made on first use under `key` (callers keep it). */
  series(key: string, labels: () => L): MetricSeries<L> {
    let s = this.all.get(key);
    if (!s) this.all.set(key, (s = new MetricSeries(labels(), this.options.histogram.buckets)));
    return s;
  }

  private counterValues(): MetricValue[] {
    const values: MetricValue[] = [];
    const label = this.options.counter.outcomeLabel;
    for (const s of this.all.values()) {
      if (label === undefined) {
        let total = 0;
        for (const value of s.outcomes.values()) total += value;
        if (total > 0) values.push({ value: total, labels: s.labels });
        continue;
      }
      for (const [outcome, value] of s.outcomes)
        values.push({ value, labels: { ...s.labels, [label]: String(outcome) } });
    }
    return values;
  }

  private histogramValues(): MetricValue[] {
    const values: MetricValue[] = [];
    const { name, buckets } = this.options.histogram;
    for (const s of this.all.values()) {
      if (s.count === 0) continue;
      let cumulative = 0;
      buckets.forEach((le, i) => {
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

/** A metric registered with the registry like prom-client's own (name, help, type, aggregator, get), values computed on read. */
function registerComputed(
  registry: client.Registry,
  metric: { name: string; help: string },
  type: 'counter' | 'histogram',
  values: () => MetricValue[],
): { get(): Promise<{ values: MetricValue[] }> } {
  const registered = {
    name: metric.name,
    help: metric.help,
    type,
    aggregator: 'sum' as const,
    get: async () => ({ ...registered, values: values() }),
  };
  registry.registerMetric(registered as unknown as client.Metric);
  return registered;
}
