import { describe, expect, it } from 'vitest';
import type { AuditEvent } from './audit-log.js';
import { OCSF_SCHEMA_VERSION, escapeCefExtension, escapeCefHeader, toCef, toJsonLine, toOcsf } from './exports.js';

const event: AuditEvent = {
  tenantId: 'alpha',
  seq: 7,
  eventId: '00000000-0000-4000-8000-000000000007',
  occurredAt: '2040-01-01T00:00:00.123Z',
  type: 'command.executed',
  commandId: 'party-rest.persons.create',
  principalId: 'alice',
  result: 'success',
  correlationId: 'corr-1',
  traceId: '0af7651916cd43dd8448eb211c80319c',
  businessIds: { personId: 'p-1' },
  details: { policy: 'tenant_admin' },
  prevHash: 'a'.repeat(64),
  hash: 'b'.repeat(64),
};
const TIME_MS = Date.UTC(2040, 0, 1, 0, 0, 0, 123);

describe('JSON export', () => {
  it('is one line holding the event as stored', () => {
    const line = toJsonLine(event);
    expect(line).not.toContain('\n');
    expect(JSON.parse(line)).toEqual(event);
  });
});

describe('CEF export', () => {
  it('escapes backslash and pipe in header fields and turns line breaks into spaces', () => {
    expect(escapeCefHeader('a|b\\c\r\nd\ne')).toBe('a\\|b\\\\c d e');
  });

  it('escapes backslash and equals sign in extension values and writes line breaks as \\n and \\r', () => {
    expect(escapeCefExtension('k=v\\w\nx\r\ny\rz|p')).toBe('k\\=v\\\\w\\nx\\ny\\rz|p');
  });

  it('writes the header and the extension of an event', () => {
    expect(toCef(event, { productVersion: '1.2.3' })).toBe(
      `CEF:0|Tessera|tessera|1.2.3|command.executed|party-rest.persons.create|3|rt=${TIME_MS} ` +
        'externalId=00000000-0000-4000-8000-000000000007 cn1Label=seq cn1=7 suser=alice outcome=success ' +
        'cs1Label=tenant cs1=alpha cs2Label=correlationId cs2=corr-1 cs3Label=traceId cs3=0af7651916cd43dd8448eb211c80319c ' +
        'cs4Label=businessIds cs4={"personId":"p-1"} cs5Label=details cs5={"policy":"tenant_admin"} ' +
        `cs6Label=hash cs6=${'b'.repeat(64)}`,
    );
  });

  it('names an event without a command by its type, rates denials higher, and escapes hostile values', () => {
    const line = toCef({
      ...event,
      type: 'authorization|denied',
      commandId: null,
      principalId: null,
      result: 'denied',
      correlationId: 'x=1\ny',
      details: { reason: 'a\\b' },
    });
    const [header, extension] = splitCef(line);
    expect(header).toEqual([
      'CEF:0',
      'Tessera',
      'tessera',
      '0.0.0',
      'authorization\\|denied',
      'authorization\\|denied',
      '7',
    ]);
    expect(extension).not.toContain('suser=');
    expect(extension).toContain('cs2=x\\=1\\ny');
    expect(extension).toContain('cs5={"reason":"a\\\\\\\\b"}');
    expect(line).not.toMatch(/[\r\n]/);
  });

  it('rates failures as medium', () => {
    expect(splitCef(toCef({ ...event, result: 'failure' }))[0][6]).toBe('5');
  });
});

/** Splits a CEF line at its unescaped pipes: seven header fields, then the extension. */
function splitCef(line: string): [string[], string] {
  const fields: string[] = [];
  let current = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '\\' && fields.length < 7) {
      current += c + line[++i]!;
    } else if (c === '|' && fields.length < 7) {
      fields.push(current);
      current = '';
    } else current += c;
  }
  return [fields, current];
}

describe('OCSF export', () => {
  it('maps a command execution to API Activity (6003, category 6) with the verb as activity', () => {
    const ocsf = toOcsf(event, { productVersion: '1.2.3' });
    expect(ocsf).toEqual({
      class_uid: 6003,
      class_name: 'API Activity',
      category_uid: 6,
      category_name: 'Application Activity',
      activity_id: 1,
      activity_name: 'Create',
      type_uid: 600301,
      type_name: 'API Activity: Create',
      time: TIME_MS,
      severity_id: 1,
      severity: 'Informational',
      status_id: 1,
      status: 'Success',
      status_code: 'success',
      message: 'command.executed',
      actor: { user: { uid: 'alice' } },
      api: { operation: 'party-rest.persons.create' },
      metadata: {
        version: OCSF_SCHEMA_VERSION,
        product: { name: 'Tessera', vendor_name: 'Tessera', version: '1.2.3' },
        uid: event.eventId,
        event_code: 'command.executed',
        log_name: 'audit',
        sequence: 7,
        tenant_uid: 'alpha',
        correlation_uid: 'corr-1',
      },
      unmapped: {
        command_id: 'party-rest.persons.create',
        trace_id: event.traceId,
        business_ids: { personId: 'p-1' },
        details: { policy: 'tenant_admin' },
        prev_hash: event.prevHash,
        hash: event.hash,
      },
    });
  });

  it('maps authentication events to Authentication (3002, category 3) with the user authenticated', () => {
    const ocsf = toOcsf({
      ...event,
      type: 'authentication.failed',
      commandId: null,
      result: 'failure',
      principalId: 'bob',
    });
    expect(ocsf).toMatchObject({
      class_uid: 3002,
      class_name: 'Authentication',
      category_uid: 3,
      activity_id: 1,
      type_uid: 300201,
      status_id: 2,
      status: 'Failure',
      severity_id: 2,
      user: { uid: 'bob' },
      actor: { user: { uid: 'bob' } },
    });
    expect(ocsf).not.toHaveProperty('api');
    expect(toOcsf({ ...event, type: 'authentication.logout' })).toMatchObject({ activity_id: 2, type_uid: 300202 });
  });

  it('reports a denial as a failure of medium severity, and an unknown verb as Other', () => {
    const ocsf = toOcsf({
      ...event,
      commandId: 'oid4vci.issuer.createoffer',
      result: 'denied',
      principalId: null,
      correlationId: null,
    });
    expect(ocsf).toMatchObject({
      activity_id: 99,
      type_uid: 600399,
      status_id: 2,
      status_code: 'denied',
      severity_id: 3,
      actor: {},
    });
    expect(ocsf.metadata).not.toHaveProperty('correlation_uid');
    expect(toOcsf({ ...event, commandId: 'platform.audit.read-events' })).toMatchObject({
      activity_id: 2,
      activity_name: 'Read',
    });
    expect(toOcsf({ ...event, commandId: 'party-rest.persons.delete' })).toMatchObject({
      activity_id: 4,
      type_uid: 600304,
    });
  });
});
