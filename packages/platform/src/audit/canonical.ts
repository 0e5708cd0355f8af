import { hash } from 'node:crypto';
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
      // A loop over the sorted keys rather than filter/map/join: every audit event's businessIds and details pass
      // here, and the intermediate arrays were most of the cost.
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record).sort();
      let out = '{';
      for (const key of keys) {
        const member = record[key];
        if (member === undefined) continue;
        out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${canonicalJson(member)}`;
      }
      return `${out}}`;
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
// eslint-disable-next-line no-control-regex -- the same class, without the global flag's lastIndex state.
const HAS_UNSTORABLE = /[\u0000\uD800-\uDFFF]/u;

export function storableString(value: string): string {
  return HAS_UNSTORABLE.test(value) ? value.replace(UNSTORABLE, '\uFFFD') : value;
}

/**
 * Reduces a value to plain JSON as it will be stored: what JSON.stringify drops goes, what it converts is
 * converted (Date to ISO text, non-finite numbers to null), and strings are made storable.
 */
export function toStorableJson(value: unknown): JsonValue {
  // Audit details are nearly always plain data: copied directly, they skip a JSON round trip per event.
  const copied = plainCopy(value, 0);
  if (copied !== NOT_PLAIN) return copied;
  return toStorableJsonReference(value);
}

/** toStorableJson as it is defined: through JSON text and back (the reference for the direct copy). */
export function toStorableJsonReference(value: unknown): JsonValue {
  const plain = value === undefined ? null : (JSON.parse(JSON.stringify(value)) as JsonValue);
  return sanitize(plain);
}

const NOT_PLAIN = Symbol('not plain');
/** Deeper than this, the JSON round trip decides (and reports a cycle as JSON.stringify does). */
const MAX_DIRECT_DEPTH = 32;

/**
 * The storable copy of plain data (strings, finite numbers, booleans, null, arrays and plain objects of them,
 * undefined members), equal to the JSON round trip's (with object keys in sorted order); NOT_PLAIN for anything the round trip would convert or drop
 * in another way (toJSON, class instances, functions, non-finite numbers, holes or undefined in arrays, a
 * `__proto__` key), which then takes the round trip.
 */
function plainCopy(value: unknown, depth: number): JsonValue | typeof NOT_PLAIN {
  switch (typeof value) {
    case 'string':
      return storableString(value);
    case 'boolean':
      return value;
    case 'number':
      // JSON writes -0 as 0.
      return Number.isFinite(value) ? value + 0 : NOT_PLAIN;
    case 'object': {
      if (value === null) return null;
      if (depth >= MAX_DIRECT_DEPTH) return NOT_PLAIN;
      if (Array.isArray(value)) {
        const out: JsonValue[] = new Array<JsonValue>(value.length);
        for (let i = 0; i < value.length; i++) {
          if (!(i in value) || value[i] === undefined) return NOT_PLAIN;
          const item = plainCopy(value[i], depth + 1);
          if (item === NOT_PLAIN) return NOT_PLAIN;
          out[i] = item;
        }
        return out;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if ((proto !== Object.prototype && proto !== null) || 'toJSON' in value) return NOT_PLAIN;
      const out: { [key: string]: JsonValue } = {};
      // Copied in sorted key order, the order the chain's canonical text writes them in (canonicalEvent).
      const keys = Object.keys(value);
      if (keys.length > 1) keys.sort();
      for (const key of keys) {
        if (key === '__proto__') return NOT_PLAIN;
        const member = (value as Record<string, unknown>)[key];
        if (member === undefined) continue;
        const copied = plainCopy(member, depth + 1);
        if (copied === NOT_PLAIN) return NOT_PLAIN;
        out[storableString(key)] = copied;
      }
      return out;
    }
    default:
      return NOT_PLAIN;
  }
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
 * The canonical text an event's hash covers: canonicalJson of every field, tenant and sequence number included.
 * The fields are laid out with the top-level keys already in canonical (sorted) order, and when every value in
 * them is in canonical form already (inCanonicalForm: plain, keys sorted, as prepared events nearly always are),
 * the text is JSON.stringify's, which writes exactly what canonicalJson would at a third of its cost (issue 16);
 * otherwise it is canonicalJson's. `canonicalEventReference` is the plain form, and tests hold the two equal.
 */
export function canonicalEvent(event: HashedEventFields): string {
  // Sorted by UTF-16 code units: businessIds, commandId, correlationId, details, eventId, occurredAt,
  // principalId, result, seq, tenantId, traceId, type. A member that is undefined is left out by both writers.
  const ordered = {
    businessIds: event.businessIds,
    commandId: event.commandId,
    correlationId: event.correlationId,
    details: event.details,
    eventId: event.eventId,
    occurredAt: event.occurredAt,
    principalId: event.principalId,
    result: event.result,
    seq: event.seq,
    tenantId: event.tenantId,
    traceId: event.traceId,
    type: event.type,
  };
  return inCanonicalForm(ordered, 0) ? JSON.stringify(ordered) : canonicalJson(ordered);
}

/** Deeper than this, canonicalJson writes the value. */
const MAX_CANONICAL_CHECK_DEPTH = 16;

/**
 * True when JSON.stringify(value) is canonicalJson(value): strings, booleans, null, finite numbers, arrays without
 * holes or undefined items, and plain objects (no toJSON) whose own keys, in the order JSON.stringify visits them
 * (Object.keys: integer-like keys first, ascending), are already sorted by UTF-16 code units. Anything else
 * (functions, bigints, a Date, keys out of order such as jsonb's) is left to canonicalJson, which sorts, or refuses.
 */
export function inCanonicalForm(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (value === null) return true;
      if (depth >= MAX_CANONICAL_CHECK_DEPTH) return false;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          if (!(i in value) || value[i] === undefined || !inCanonicalForm(value[i], depth + 1)) return false;
        }
        return true;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if ((proto !== Object.prototype && proto !== null) || 'toJSON' in value) return false;
      const keys = Object.keys(value);
      for (let i = 0; i < keys.length; i++) {
        if (i > 0 && !(keys[i - 1]! < keys[i]!)) return false;
        const member = (value as Record<string, unknown>)[keys[i]!];
        if (member !== undefined && !inCanonicalForm(member, depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
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
  return linkHash(prevHash, canonicalEvent(event));
}

/** The hash of an event whose canonical text (canonicalEvent) is written already. */
export function linkHash(prevHash: string, canonicalText: string): string {
  return hash('sha256', `${prevHash}${canonicalText}`, 'hex');
}
