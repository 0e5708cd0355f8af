import { describe, expect, it } from 'vitest';
import { propagationHeaders, traceIdsFor } from './trace-context.js';

/**
 * W3C Trace Context without an OpenTelemetry SDK: a valid incoming traceparent is continued with a new span id;
 * anything else starts a new trace (W3C Trace Context §3.2: all-zero trace and parent ids are invalid).
 */

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;

describe('traceIdsFor', () => {
  it('continues a valid traceparent with the same trace id, a new span id and the same flags', () => {
    const ids = traceIdsFor(`00-${TRACE_ID}-${PARENT_ID}-01`, 'vendor=abc,other=1');
    expect(ids.traceId).toBe(TRACE_ID);
    expect(ids.spanId).toMatch(HEX16);
    expect(ids.spanId).not.toBe(PARENT_ID);
    expect(ids.flags).toBe('01');
    expect(ids.tracestate).toBe('vendor=abc,other=1');
  });

  it('keeps flags that are not sampled', () => {
    expect(traceIdsFor(`00-${TRACE_ID}-${PARENT_ID}-00`, undefined)).toMatchObject({
      traceId: TRACE_ID,
      flags: '00',
      tracestate: undefined,
    });
  });

  it('gives each continued request its own span id', () => {
    const a = traceIdsFor(`00-${TRACE_ID}-${PARENT_ID}-01`, undefined);
    const b = traceIdsFor(`00-${TRACE_ID}-${PARENT_ID}-01`, undefined);
    expect(a.traceId).toBe(b.traceId);
    expect(a.spanId).not.toBe(b.spanId);
  });

  it('starts a fresh trace without a traceparent', () => {
    const ids = traceIdsFor(undefined, 'vendor=abc');
    expect(ids.traceId).toMatch(HEX32);
    expect(ids.spanId).toMatch(HEX16);
    expect(ids.flags).toBe('00');
    // A tracestate without a valid traceparent is discarded (§3.3).
    expect(ids.tracestate).toBeUndefined();
    expect(traceIdsFor(undefined, undefined).traceId).not.toBe(ids.traceId);
  });

  it.each([
    ['garbage', 'not-a-traceparent'],
    ['an empty string', ''],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${PARENT_ID}-01`],
    ['upper-case hex', `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`],
    ['a short trace id', `00-${TRACE_ID.slice(1)}-${PARENT_ID}-01`],
    ['a long parent id', `00-${TRACE_ID}-${PARENT_ID}0-01`],
    ['the forbidden version ff', `ff-${TRACE_ID}-${PARENT_ID}-01`],
    ['surrounding text', ` 00-${TRACE_ID}-${PARENT_ID}-01;x`],
    ['missing flags', `00-${TRACE_ID}-${PARENT_ID}`],
  ])('starts a fresh trace for %s', (_label, traceparent) => {
    const ids = traceIdsFor(traceparent, 'vendor=abc');
    expect(ids.traceId).toMatch(HEX32);
    expect(ids.traceId).not.toBe(TRACE_ID);
    expect(ids.traceId).not.toBe('0'.repeat(32));
    expect(ids.spanId).toMatch(HEX16);
    expect(ids.flags).toBe('00');
    expect(ids.tracestate).toBeUndefined();
  });

  it('starts a fresh trace for an all-zero parent id', () => {
    const ids = traceIdsFor(`00-${TRACE_ID}-${'0'.repeat(16)}-01`, 'vendor=abc');
    expect(ids.traceId).not.toBe(TRACE_ID);
    expect(ids.traceId).toMatch(HEX32);
    expect(ids.tracestate).toBeUndefined();
  });
});

describe('propagationHeaders', () => {
  it('formats traceparent as version-trace-span-flags and passes tracestate through', () => {
    const ids = traceIdsFor(`00-${TRACE_ID}-${PARENT_ID}-01`, 'vendor=abc');
    expect(propagationHeaders(ids)).toEqual({
      traceparent: `00-${TRACE_ID}-${ids.spanId}-01`,
      tracestate: 'vendor=abc',
    });
  });

  it('leaves tracestate out when there is none', () => {
    const headers = propagationHeaders({ traceId: TRACE_ID, spanId: PARENT_ID, flags: '00', tracestate: undefined });
    expect(headers).toEqual({ traceparent: `00-${TRACE_ID}-${PARENT_ID}-00` });
    expect(headers).not.toHaveProperty('tracestate');
    expect(
      propagationHeaders({ traceId: TRACE_ID, spanId: PARENT_ID, flags: '00', tracestate: '' }),
    ).not.toHaveProperty('tracestate');
  });

  it('produces a traceparent that the next service continues', () => {
    const fresh = traceIdsFor(undefined, undefined);
    const headers = propagationHeaders(fresh);
    expect(headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/);
    const next = traceIdsFor(headers.traceparent, headers.tracestate);
    expect(next.traceId).toBe(fresh.traceId);
    expect(next.spanId).not.toBe(fresh.spanId);
    expect(next.flags).toBe(fresh.flags);
  });
});
