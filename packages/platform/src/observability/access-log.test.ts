import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createAccessLog, type AccessLogEntry } from './access-log.js';
import { createLogger } from './logger.js';

/** The per-request line is the line `logger.info(fields, 'request completed')` would write, only cheaper. */

function capture(level: string) {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  const logger = createLogger({ level, service: 'access-test', destination }).child({ role: 'bridge' });
  return { logger, lines: () => chunks.join('').split('\n').filter(Boolean) };
}

const entry = (extra: Partial<AccessLogEntry> = {}): AccessLogEntry => ({
  correlationId: '0b6f0d5e-6a43-4e44-9c8e-3b1f1d1f3c11',
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: '00f067aa0ba902b7',
  tenantId: 'acme',
  principalId: 'user-1',
  claimedTenantId: undefined,
  methodAndRouteJson: '"method":"GET","route":"/api/things/:id"',
  status: 200,
  durationMs: 1.25,
  ...extra,
});

describe('access log', () => {
  it("writes the fields in the logger's own format, with its bindings", () => {
    const { logger, lines } = capture('info');
    createAccessLog(logger)(entry());
    logger.info(
      {
        correlation_id: '0b6f0d5e-6a43-4e44-9c8e-3b1f1d1f3c11',
        trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
        span_id: '00f067aa0ba902b7',
        tenant_id: 'acme',
        principal_id: 'user-1',
        method: 'GET',
        route: '/api/things/:id',
        status: 200,
        duration_ms: 1.25,
      },
      'request completed',
    );
    const [fast, generic] = lines().map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(Object.keys(fast!)).toEqual(Object.keys(generic!));
    expect({ ...fast, time: 0 }).toEqual({ ...generic, time: 0 });
    expect(fast).toMatchObject({ level: 'info', service: 'access-test', role: 'bridge', msg: 'request completed' });
  });

  it('escapes what clients choose (principal, claimed tenant) so that a line stays one JSON object', () => {
    const { logger, lines } = capture('info');
    const hostile = 'x","level":"fatal"}\n{"injected":true';
    createAccessLog(logger)(entry({ principalId: hostile, claimedTenantId: `${hostile}\u2028` }));
    const all = lines();
    expect(all).toHaveLength(1);
    const record = JSON.parse(all[0]!) as Record<string, unknown>;
    expect(record.principal_id).toBe(hostile);
    expect(record.claimed_tenant_id).toBe(`${hostile}\u2028`);
    expect(record.level).toBe('info');
  });

  it('leaves out absent fields and writes nothing above info', () => {
    const quiet = capture('warn');
    createAccessLog(quiet.logger)(entry());
    expect(quiet.lines()).toEqual([]);
    const { logger, lines } = capture('info');
    createAccessLog(logger)(entry({ tenantId: null, principalId: undefined }));
    const record = JSON.parse(lines()[0]!) as Record<string, unknown>;
    expect(record).not.toHaveProperty('tenant_id');
    expect(record).not.toHaveProperty('principal_id');
  });
});
