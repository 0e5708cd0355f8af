import { randomUUID } from 'node:crypto';
import { assertTenantId } from '../db/database.js';
import type { Clock } from '../observability/clock.js';
import type { AuditEventInput, AuditOutcome, AuditResult } from './audit-log.js';
import type { PendingAuditEvent } from './audit-pending.js';
import type { AuditRedaction } from './redaction.js';
import { storableString, toStorableJson } from './canonical.js';

const RESULTS: readonly AuditResult[] = ['success', 'failure', 'denied'];

/**
 * An optional text field as stored. Module-level: under tsx a closure made per call is also named per call
 * (Object.defineProperty), which cost more than the field itself on every event.
 */
function text(v: string | null | undefined): string | null {
  return v === undefined || v === null ? null : storableString(String(v));
}

/**
 * The event as it is chained (or staged, audit-pending.ts): validated, storable, with its id and time, and with the
 * redaction rules applied (redaction.ts) before it is hashed.
 */
export function prepareAuditEvent(
  input: AuditEventInput,
  options: { clock: Clock; redaction?: AuditRedaction | undefined },
): PendingAuditEvent {
  assertTenantId(input.tenantId);
  if (typeof input.type !== 'string' || input.type.length === 0) throw new Error('an audit event needs a type');
  const type = storableString(input.type);
  const commandId = text(input.commandId);
  const { businessIds, details } = outcomeParts(input.tenantId, type, commandId, input, options.redaction);
  return {
    tenantId: input.tenantId,
    eventId: input.eventId ?? randomUUID(),
    occurredAt: (input.occurredAt ?? options.clock.now()).toISOString(),
    type,
    commandId,
    principalId: text(input.principalId),
    result: input.result,
    correlationId: text(input.correlationId),
    traceId: text(input.traceId),
    businessIds,
    details,
  };
}

/**
 * The final version of an event prepared for staging (the command bus's, once its command has answered): the
 * staged event's id, time, tenant, type and parties, already validated and storable, with the outcome's result,
 * business ids and details prepared as prepareAuditEvent would. Only the outcome is prepared again.
 */
export function prepareStagedOutcome(
  staged: PendingAuditEvent,
  outcome: AuditOutcome,
  options: { redaction?: AuditRedaction | undefined },
): PendingAuditEvent {
  const { businessIds, details } = outcomeParts(
    staged.tenantId,
    staged.type,
    staged.commandId,
    outcome,
    options.redaction,
  );
  return {
    tenantId: staged.tenantId,
    eventId: staged.eventId,
    occurredAt: staged.occurredAt,
    type: staged.type,
    commandId: staged.commandId,
    principalId: staged.principalId,
    result: outcome.result,
    correlationId: staged.correlationId,
    traceId: staged.traceId,
    businessIds,
    details,
  };
}

/**
 * The result checked, and the business ids and details as stored and redacted. Business ids are laid out with their
 * keys sorted (and details by toStorableJson), the canonical order the chain's hash writes them in, so that
 * canonicalEvent can write them as they are (canonical.ts).
 */
function outcomeParts(
  tenantId: string,
  type: string,
  commandId: string | null,
  outcome: AuditOutcome,
  redaction: AuditRedaction | undefined,
): Pick<PendingAuditEvent, 'businessIds' | 'details'> {
  if (!RESULTS.includes(outcome.result)) throw new Error(`invalid audit result ${JSON.stringify(outcome.result)}`);
  const businessIds: Record<string, string> = {};
  const ids = outcome.businessIds;
  if (ids) {
    const keys = Object.keys(ids);
    if (keys.length > 1) keys.sort();
    for (const k of keys) {
      const v = ids[k];
      if (v !== undefined && v !== null) businessIds[storableString(k)] = storableString(String(v));
    }
  }
  const storable = toStorableJson(outcome.details ?? {});
  const details: Record<string, unknown> =
    storable !== null && typeof storable === 'object' && !Array.isArray(storable)
      ? (storable as Record<string, unknown>)
      : { value: storable };
  if (redaction && !redaction.empty) redaction.apply({ tenantId, type, commandId, businessIds, details });
  return { businessIds, details };
}
