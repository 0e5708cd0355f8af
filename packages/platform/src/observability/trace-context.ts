import { randomFillSync } from 'node:crypto';
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

// Ids are drawn from a pooled buffer refilled in bulk: one randomBytes() call per id cost ~2 µs per request.
const pool = Buffer.alloc(4096);
let offset = pool.length;
function randomHex(bytes: number): string {
  if (offset + bytes > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return hex;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export function traceIdsFor(traceparent: string | undefined, tracestate: string | undefined): TraceIds {
  const span = trace.getSpan(otelContext.active());
  const sc = span?.spanContext();
  if (sc && trace.isSpanContextValid(sc)) {
    return { traceId: sc.traceId, spanId: sc.spanId, flags: sc.traceFlags.toString(16).padStart(2, '0'), tracestate };
  }
  const m = traceparent ? TRACEPARENT.exec(traceparent) : null;
  if (m && m[1] !== '0'.repeat(32) && m[2] !== '0'.repeat(16))
    return { traceId: m[1]!, spanId: randomHex(8), flags: m[3]!, tracestate };
  return { traceId: randomHex(16), spanId: randomHex(8), flags: '00', tracestate: undefined };
}

/** Headers to send on an outgoing service-to-service call made within this request. */
export function propagationHeaders(ids: TraceIds): Record<string, string> {
  const headers: Record<string, string> = { traceparent: `00-${ids.traceId}-${ids.spanId}-${ids.flags}` };
  if (ids.tracestate) headers.tracestate = ids.tracestate;
  return headers;
}
