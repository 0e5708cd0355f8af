import { describe, expect, it } from 'vitest';
import { ManualClock } from '../observability/clock.js';
import { prepareAuditEvent, prepareStagedOutcome } from './audit-prepare.js';
import { canonicalEvent, canonicalEventReference, inCanonicalForm } from './canonical.js';
import { AuditRedaction } from './redaction.js';

const clock = new ManualClock(new Date('2040-01-01T00:00:00Z'));
const staging = {
  tenantId: 'alpha',
  type: 'command.executed',
  commandId: 'status-list.update-entry',
  principalId: 'client:tessera-admin',
  result: 'success' as const,
  correlationId: 'c-1',
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  businessIds: { listId: 'l-1', index: '7' },
  details: { policy: 'tenant_admin' },
};

describe('prepareAuditEvent', () => {
  it('lays business ids and details out in canonical order, so that the hash writes them as they are', () => {
    const prepared = prepareAuditEvent(
      { ...staging, details: { z: { b: 1, a: 2 }, policy: 'tenant_admin' } },
      { clock },
    );
    expect(Object.keys(prepared.businessIds)).toEqual(['index', 'listId']);
    expect(Object.keys(prepared.details)).toEqual(['policy', 'z']);
    expect(inCanonicalForm(prepared.businessIds, 0) && inCanonicalForm(prepared.details, 0)).toBe(true);
    const hashed = { ...prepared, seq: 3 };
    expect(canonicalEvent(hashed)).toBe(canonicalEventReference(hashed));
  });
});

describe('prepareStagedOutcome', () => {
  it("keeps the staged event's id, time and parties, and takes the outcome's result, ids and details", () => {
    const staged = prepareAuditEvent(staging, { clock });
    clock.advance(5);
    const final = prepareStagedOutcome(
      staged,
      {
        result: 'failure',
        businessIds: { newStatus: 'revoked', listId: 'l-1', index: '7', oldStatus: 'valid' },
        details: { policy: 'tenant_admin', error: 'conflict' },
      },
      {},
    );
    expect(final).toEqual({
      ...staged,
      result: 'failure',
      businessIds: { index: '7', listId: 'l-1', newStatus: 'revoked', oldStatus: 'valid' },
      details: { error: 'conflict', policy: 'tenant_admin' },
    });
    expect(final.occurredAt).toBe('2040-01-01T00:00:00.000Z');
    expect(Object.keys(final.businessIds)).toEqual(['index', 'listId', 'newStatus', 'oldStatus']);
    // The staged version is left as it was staged.
    expect(staged.businessIds).toEqual({ index: '7', listId: 'l-1' });
  });

  it('checks the result and applies the redaction rules to the outcome, as prepareAuditEvent does', () => {
    const staged = prepareAuditEvent(staging, { clock });
    const redaction = new AuditRedaction(
      [{ commands: ['status-list.*'], fields: ['details.note', 'businessIds.index'], action: 'drop' }],
      Buffer.alloc(32, 1),
    );
    const outcome = { result: 'success' as const, businessIds: { listId: 'l-1', index: '7' }, details: { note: 'x' } };
    const final = prepareStagedOutcome(staged, outcome, { redaction });
    expect(final.businessIds).toEqual({ listId: 'l-1' });
    expect(final.details).toEqual({});
    expect(final).toEqual({
      ...prepareAuditEvent({ ...staging, ...outcome, eventId: staged.eventId }, { clock, redaction }),
      occurredAt: staged.occurredAt,
    });
    expect(() => prepareStagedOutcome(staged, { result: 'maybe' as 'success' }, {})).toThrow(/invalid audit result/);
  });
});
