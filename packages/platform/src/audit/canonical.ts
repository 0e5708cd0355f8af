import { createHash } from 'node:crypto';
import type { AuditEvent } from './audit-log.js';

/**
 * The canonical form of audit events and the hash chain over them (001 §6: tamper evidence through hash chaining).
 * Pure: no I/O, no clock. Changing anything here changes every hash, so existing chains would stop verifying.
 */

/** prev_hash of the first event of every tenant's chain. */
export const GENESIS_HASH = '0'.repeat(64);

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * Canonical JSON: object keys sorted by UTF-16 code units, no whitespace, `undefined` members left out, strings
 * and numbers as JSON.stringify writes them. The same value always gives the same text, whatever the key order
 * it was built or stored with (jsonb reorders keys).
 */
export function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('canonical JSON holds finite numbers only');
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
      const record = value as Record<string, unknown>;
      const members = Object.keys(record)
        .filter((k) => record[k] !== undefined)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`);
      return `{${members.join(',')}}`;
    }
    default:
      throw new TypeError(`canonical JSON cannot hold a ${typeof value}`);
  }
}

/**
 * NUL and lone UTF-16 surrogates cannot be stored by PostgreSQL (text and jsonb refuse NUL; drivers replace lone
 * surrogates when encoding UTF-8), so a value holding them would hash differently once read back. They are
 * replaced with U+FFFD before hashing, so the event is still recorded and its hash still verifies.
 */
// eslint-disable-next-line no-control-regex -- NUL is precisely the character this pattern must find.
const UNSTORABLE = /[\u0000\uD800-\uDFFF]/gu;

export function storableString(value: string): string {
  return value.replace(UNSTORABLE, '\uFFFD');
}

/**
 * Reduces a value to plain JSON as it will be stored: what JSON.stringify drops goes, what it converts is
 * converted (Date to ISO text, non-finite numbers to null), and strings are made storable.
 */
export function toStorableJson(value: unknown): JsonValue {
  const plain = value === undefined ? null : (JSON.parse(JSON.stringify(value)) as JsonValue);
  return sanitize(plain);
}

function sanitize(value: JsonValue): JsonValue {
  if (typeof value === 'string') return storableString(value);
  if (Array.isArray(value)) return value.map(sanitize);
  if (value !== null && typeof value === 'object') {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, v] of Object.entries(value)) out[storableString(k)] = sanitize(v);
    return out;
  }
  return value;
}

/** Every field of an event except the chain links themselves. */
export type HashedEventFields = Omit<AuditEvent, 'prevHash' | 'hash'>;

/**
 * The canonical text an event's hash covers: every field, tenant and sequence number included. It is
 * canonicalJson of the event's fields, written out with the top-level keys already in canonical (sorted) order,
 * which saves sorting twelve keys for every event appended; `canonicalEventReference` is the plain form, and a
 * test holds the two equal.
 */
export function canonicalEvent(event: HashedEventFields): string {
  // Sorted by UTF-16 code units: businessIds, commandId, correlationId, details, eventId, occurredAt,
  // principalId, result, seq, tenantId, traceId, type. A member that is undefined is left out, as canonicalJson does.
  let out = '{';
  out = member(out, 'businessIds', event.businessIds);
  out = member(out, 'commandId', event.commandId);
  out = member(out, 'correlationId', event.correlationId);
  out = member(out, 'details', event.details);
  out = member(out, 'eventId', event.eventId);
  out = member(out, 'occurredAt', event.occurredAt);
  out = member(out, 'principalId', event.principalId);
  out = member(out, 'result', event.result);
  out = member(out, 'seq', event.seq);
  out = member(out, 'tenantId', event.tenantId);
  out = member(out, 'traceId', event.traceId);
  out = member(out, 'type', event.type);
  return `${out}}`;
}

/** Appends `"key":value` (canonical) to an object's text so far, unless the value is undefined. */
function member(out: string, key: string, value: unknown): string {
  if (value === undefined) return out;
  return `${out}${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${canonicalJson(value)}`;
}

/** canonicalJson of the event's hashed fields, as the hash is defined (the reference for canonicalEvent). */
export function canonicalEventReference(event: HashedEventFields): string {
  return canonicalJson({
    tenantId: event.tenantId,
    seq: event.seq,
    eventId: event.eventId,
    occurredAt: event.occurredAt,
    type: event.type,
    commandId: event.commandId,
    principalId: event.principalId,
    result: event.result,
    correlationId: event.correlationId,
    traceId: event.traceId,
    businessIds: event.businessIds,
    details: event.details,
  });
}

/** hash = hex(SHA-256(prev_hash || canonical JSON of the event)): each event commits to the whole chain before it. */
export function eventHash(prevHash: string, event: HashedEventFields): string {
  return createHash('sha256').update(prevHash, 'utf8').update(canonicalEvent(event), 'utf8').digest('hex');
}
