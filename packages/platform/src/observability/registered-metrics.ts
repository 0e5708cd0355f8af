import client from 'prom-client';
import type { Metrics } from './metrics.js';

/**
 * A context's own metrics on the process's registry (001 §4.5), without a prom-client dependency of its own: the
 * metric of that name when one is registered already (several services of one process, or a test that builds a
 * service twice, share it), else a new one. Label names are fixed by the first registration.
 */
export function registeredCounter<L extends string>(
  metrics: Metrics,
  spec: { name: string; help: string; labelNames: readonly L[] },
): client.Counter<L> {
  const existing = metrics.registry.getSingleMetric(spec.name) as client.Counter<L> | undefined;
  return existing ?? new client.Counter({ ...spec, labelNames: [...spec.labelNames], registers: [metrics.registry] });
}

export function registeredHistogram<L extends string>(
  metrics: Metrics,
  spec: { name: string; help: string; labelNames: readonly L[]; buckets: number[] },
): client.Histogram<L> {
  const existing = metrics.registry.getSingleMetric(spec.name) as client.Histogram<L> | undefined;
  return existing ?? new client.Histogram({ ...spec, labelNames: [...spec.labelNames], registers: [metrics.registry] });
}
