import { trace, context as otelContext } from '@opentelemetry/api';
import { randomHex } from './random-ids.js';

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
// All-zero ids are invalid (W3C trace context §3.2.2.3, §3.2.2.4).
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);

export function traceIdsFor(traceparent: string | undefined, tracestate: string | undefined): TraceIds {
  const span = trace.getSpan(otelContext.active());
  const sc = span?.spanContext();
  if (sc && trace.isSpanContextValid(sc)) {
    return { traceId: sc.traceId, spanId: sc.spanId, flags: sc.traceFlags.toString(16).padStart(2, '0'), tracestate };
  }
  const m = traceparent ? TRACEPARENT.exec(traceparent) : null;
  if (m && m[1] !== ZERO_TRACE_ID && m[2] !== ZERO_SPAN_ID)
    return { traceId: m[1]!, spanId: randomHex(8), flags: m[3]!, tracestate };
  return { traceId: randomHex(16), spanId: randomHex(8), flags: '00', tracestate: undefined };
}

/** Headers to send on an outgoing service-to-service call made within this request. */
export function propagationHeaders(ids: TraceIds): Record<string, string> {
  const headers: Record<string, string> = { traceparent: `00-${ids.traceId}-${ids.spanId}-${ids.flags}` };
  if (ids.tracestate) headers.tracestate = ids.tracestate;
  return headers;
}
