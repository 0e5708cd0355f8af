import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../audit/audit-log.js';
import { frameSyslog, headerField, toSyslogMessage } from './syslog-message.js';

const event = (overrides: Partial<AuditEvent> = {}): AuditEvent => ({
  tenantId: 'alpha',
  seq: 7,
  eventId: '5b0f7c1e-8d6a-4a53-9b53-0f8a2b1c9d11',
  occurredAt: '2026-11-26T10:00:00.123Z',
  type: 'token.issued',
  commandId: 'token-service.token.exchange',
  principalId: 'demo-rp',
  result: 'success',
  correlationId: null,
  traceId: null,
  businessIds: {},
  details: {},
  prevHash: 'a',
  hash: 'b',
  ...overrides,
});

const header = { hostname: 'node-1.example', procId: '4242' };

describe('RFC 5424 syslog message of an audit event', () => {
  it('writes facility log audit with the severity of the result, the event time, host, app, procid and type', () => {
    const message = toSyslogMessage(event(), '{"a":1}', header);
    expect(message).toBe('<110>1 2026-11-26T10:00:00.123Z node-1.example tessera 4242 token.issued - \uFEFF{"a":1}');
    expect(toSyslogMessage(event({ result: 'failure' }), 'x', header)).toMatch(/^<108>1 /);
    expect(toSyslogMessage(event({ result: 'denied' }), 'x', header)).toMatch(/^<109>1 /);
  });

  it('keeps header fields printable US-ASCII within their lengths, NILVALUE when nothing is left', () => {
    expect(headerField('a b\tc\u00e9', 32)).toBe('abc');
    expect(headerField('x'.repeat(40), 32)).toHaveLength(32);
    expect(headerField(' \u00e9 ', 32)).toBe('-');
    const message = toSyslogMessage(event({ type: 'a very long event type that goes past thirty-two' }), 'm', {
      hostname: '',
      procId: '1',
    });
    expect(message.split(' ').slice(2, 6)).toEqual(['-', 'tessera', '1', 'averylongeventtypethatgoespastth']);
  });

  it('frames by octet count (RFC 5425 §4.3), counting UTF-8 bytes, so line breaks stay inside one record', () => {
    const message = toSyslogMessage(event(), 'line one\nline two \u00fc', header);
    const frame = frameSyslog(message);
    const space = frame.indexOf(0x20);
    const length = Number(frame.subarray(0, space).toString('ascii'));
    expect(length).toBe(Buffer.byteLength(message, 'utf8'));
    expect(length).toBeGreaterThan(message.length);
    expect(frame.subarray(space + 1).toString('utf8')).toBe(message);
  });
});
