import { randomUUID } from 'node:crypto';
import { assertTenantId } from '../db/database.js';
import type { Clock } from '../observability/clock.js';
import type { AuditEventInput, AuditResult } from './audit-log.js';
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
  if (!RESULTS.includes(input.result)) throw new Error(`invalid audit result ${JSON.stringify(input.result)}`);
  const businessIds: Record<string, string> = {};
  for (const [k, v] of Object.entries(input.businessIds ?? {})) {
    if (v !== undefined && v !== null) businessIds[storableString(k)] = storableString(String(v));
  }
  const storable = toStorableJson(input.details ?? {});
  const details: Record<string, unknown> =
    storable !== null && typeof storable === 'object' && !Array.isArray(storable)
      ? (storable as Record<string, unknown>)
      : { value: storable };
  const type = storableString(input.type);
  const commandId = text(input.commandId);
  if (options.redaction && !options.redaction.empty)
    options.redaction.apply({ tenantId: input.tenantId, type, commandId, businessIds, details });
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
