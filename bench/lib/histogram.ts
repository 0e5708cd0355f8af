/**
 * Latency histogram with logarithmic buckets (each 1% wider than the last): constant memory however many calls a
 * CPU scenario makes, and percentiles within 1% of the exact value. Values are milliseconds.
 */
export class LatencyHistogram {
  private static readonly GROWTH = 1.01;
  private static readonly LOG_GROWTH = Math.log(LatencyHistogram.GROWTH);
  /** Smallest value told apart: 1 ns. */
  private static readonly FLOOR_MS = 1e-6;
  private readonly counts = new Map<number, number>();
  count = 0;
  sum = 0;
  min = Infinity;
  max = -Infinity;

  record(ms: number): void {
    const v = Math.max(ms, LatencyHistogram.FLOOR_MS);
    const bucket = Math.ceil(Math.log(v / LatencyHistogram.FLOOR_MS) / LatencyHistogram.LOG_GROWTH);
    this.counts.set(bucket, (this.counts.get(bucket) ?? 0) + 1);
    this.count++;
    this.sum += ms;
    if (ms < this.min) this.min = ms;
    if (ms > this.max) this.max = ms;
  }

  get mean(): number {
    return this.count === 0 ? 0 : this.sum / this.count;
  }

  /** The value at or below which `p` percent of the recorded values lie (upper bound of its bucket, clamped to min/max). */
  percentile(p: number): number {
    if (this.count === 0) return 0;
    const rank = Math.max(1, Math.ceil((p / 100) * this.count));
    const buckets = [...this.counts.keys()].sort((a, b) => a - b);
    let seen = 0;
    for (const bucket of buckets) {
      seen += this.counts.get(bucket)!;
      if (seen >= rank) {
        const upper = LatencyHistogram.FLOOR_MS * LatencyHistogram.GROWTH ** bucket;
        return Math.min(Math.max(upper, this.min), this.max);
      }
    }
    return this.max;
  }
}

/** The latency figures of a measurement, from its histogram. */
export function latencyOf(histogram: LatencyHistogram): { p50: number; p99: number; mean: number; max: number } {
  return {
    p50: histogram.percentile(50),
    p99: histogram.percentile(99),
    mean: histogram.mean,
    max: histogram.count ? histogram.max : 0,
  };
}
