import { randomBytes } from 'node:crypto';
import { trace, context as otelContext } from '@opentelemetry/api';

/**
 * W3C trace context (traceparent / tracestate). With OpenTelemetry on, the active span's ids are used; without
 * it, an incoming traceparent is continued with a new span id, so logs still correlate and outgoing calls
 * still propagate it.
 */
export interface TraceIds {
  traceId: string;
  spanId: string;
  flags: string;
  tracestate: string | undefined;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export function traceIdsFor(traceparent: string | undefined, tracestate: string | undefined): TraceIds {
  const span = trace.getSpan(otelContext.active());
  const sc = span?.spanContext();
  if (sc && trace.isSpanContextValid(sc)) {
    return { traceId: sc.traceId, spanId: sc.spanId, flags: sc.traceFlags.toString(16).padStart(2, '0'), tracestate };
  }
  const m = traceparent ? TRACEPARENT.exec(traceparent) : null;
  if (m && m[1] !== '0'.repeat(32) && m[2] !== '0'.repeat(16)) return { traceId: m[1]!, spanId: randomBytes(8).toString('hex'), flags: m[3]!, tracestate };
  return { traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex'), flags: '00', tracestate: undefined };
}

/** Headers to send on an outgoing service-to-service call made within this request. */
export function propagationHeaders(ids: TraceIds): Record<string, string> {
  const headers: Record<string, string> = { traceparent: `00-${ids.traceId}-${ids.spanId}-${ids.flags}` };
  if (ids.tracestate) headers.tracestate = ids.tracestate;
  return headers;
}
