import { describe, expect, it } from 'vitest';
import { AppError } from '@tessera/platform';
import { canonicalAuxiliaryData, isLive, MAX_AUXILIARY_BYTES, parseExpiresAt } from './auxiliary-data.js';
import { categoryAllowed, projectCategories, projectClaims, projectionOf } from './projection.js';
import { parseIdentifierType } from './identifier-type.js';
import { computeIdentifierHash } from './identifier-hash.js';

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).wireCode ?? (error as AppError).code;
  }
  throw new Error('expected a refusal');
};

describe('auxiliary data rules', () => {
  it('stores the canonical form and measures its UTF-8 bytes: 65 536 accepted, 65 537 refused', () => {
    expect(canonicalAuxiliaryData({ b: 1, a: { d: [1, 2], c: 'x' } })).toBe('{"a":{"c":"x","d":[1,2]},"b":1}');
    expect(Buffer.byteLength(canonicalAuxiliaryData({ x: 'a'.repeat(MAX_AUXILIARY_BYTES - 8) }))).toBe(
      MAX_AUXILIARY_BYTES,
    );
    expect(code(() => canonicalAuxiliaryData({ x: 'a'.repeat(MAX_AUXILIARY_BYTES - 7) }))).toBe('data_too_large');
    expect(code(() => canonicalAuxiliaryData({ x: '€'.repeat(21_843) }))).toBe('data_too_large');
  });

  it('accepts objects only, and numbers that JSON can hold', () => {
    for (const data of [null, [], 'x', 1, true])
      expect(code(() => canonicalAuxiliaryData(data))).toBe('invalid_request');
    expect(code(() => canonicalAuxiliaryData({ x: Infinity }))).toBe('invalid_request');
  });

  it('reads expiresAt as an ISO 8601 date-time with a zone, in the future; absent never expires', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(parseExpiresAt(undefined, now)).toBeNull();
    // An offset is honoured: 01:00+01:00 is midnight UTC.
    expect(parseExpiresAt('2026-01-01T01:00:00+01:00', new Date('2025-12-31T23:00:00Z'))?.toISOString()).toBe(
      '2026-01-01T00:00:00.000Z',
    );
    expect(parseExpiresAt('2026-01-02T00:00:00.5Z', now)?.toISOString()).toBe('2026-01-02T00:00:00.500Z');
    for (const bad of ['2026-01-02', '2026-01-02T00:00:00', 'soon', '2026-01-01T00:00:00Z'])
      expect(code(() => parseExpiresAt(bad, now))).toBe('invalid_request');
    expect(isLive(null, now)).toBe(true);
    expect(isLive(now, now)).toBe(false);
  });
});

describe('projection', () => {
  const projection = projectionOf('crm-system', {
    scopes: ['reconciliation:read'],
    'projected-claims': ['email', 'constructor', 'missing'],
    'auxiliary-categories': ['crm'],
  });

  it('lets only projected claims and categories through, and never inherited properties', () => {
    expect(projectClaims({ email: 'a@b', family_name: 'Doe', service_id: 'S-1' }, projection)).toEqual({
      email: 'a@b',
    });
    expect(projectCategories(['notes', 'crm', 'partner'], projection)).toEqual(['crm']);
    expect(categoryAllowed('crm', projection)).toBe(true);
    expect(categoryAllowed('notes', projection)).toBe(false);
  });
});

describe('identifier types and hashes', () => {
  it('maps KEY, EPPN, SERVICE_ID and the service claim in upper case; refuses the rest', () => {
    expect(parseIdentifierType('KEY', 'matrikel')).toBe('KEY');
    expect(parseIdentifierType('EPPN', 'matrikel')).toBe('EPPN');
    expect(parseIdentifierType('SERVICE_ID', 'matrikel')).toBe('SERVICE_ID');
    expect(parseIdentifierType('MATRIKEL', 'matrikel')).toBe('SERVICE_ID');
    for (const bad of ['matrikel', 'key', 'EMAIL', ''])
      expect(code(() => parseIdentifierType(bad, 'matrikel'))).toBe('invalid_request');
  });

  it('computes base64url HMAC-SHA256 without padding (RFC 4231 test case 2 key and data)', () => {
    // RFC 4231 §4.3: key "Jefe", data "what do ya want for nothing?".
    const key = Buffer.from('Jefe').toString('base64url');
    expect(() => computeIdentifierHash(key, 'x')).toThrow(/shorter than 16 bytes/);
    const long = Buffer.from('Jefe'.repeat(4)).toString('base64url');
    expect(computeIdentifierHash(long, 'what do ya want for nothing?')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const hex = '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843';
    expect(
      Buffer.from(
        computeIdentifierHash(
          Buffer.from('Jefe'.padEnd(16, '\0')).toString('base64url'),
          'what do ya want for nothing?',
        ),
        'base64url',
      ).toString('hex'),
    ).toBe(hex);
  });
});
