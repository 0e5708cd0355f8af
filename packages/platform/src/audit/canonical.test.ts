import { describe, expect, it } from 'vitest';
import {
  GENESIS_HASH,
  canonicalEvent,
  canonicalEventReference,
  canonicalJson,
  eventHash,
  inCanonicalForm,
  storableString,
  toStorableJson,
  toStorableJsonReference,
  type HashedEventFields,
} from './canonical.js';

const event: HashedEventFields = {
  tenantId: 'alpha',
  seq: 1,
  eventId: '00000000-0000-4000-8000-000000000001',
  occurredAt: '2040-01-01T00:00:00.000Z',
  type: 'command.executed',
  commandId: 'party-rest.persons.create',
  principalId: 'alice',
  result: 'success',
  correlationId: 'corr-1',
  traceId: null,
  businessIds: { personId: 'p-1' },
  details: { policy: 'tenant_admin', n: 1 },
};

describe('canonicalJson', () => {
  it('sorts keys at every depth and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: true, y: null }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}',
    );
  });

  it('gives the same text whatever the key order the value was built with', () => {
    expect(canonicalJson({ x: 1, y: { q: 2, p: 3 } })).toBe(canonicalJson({ y: { p: 3, q: 2 }, x: 1 }));
  });

  it('keeps array order, leaves out undefined members and escapes strings as JSON does', () => {
    expect(canonicalJson({ list: [2, 1], gone: undefined, s: 'a"b\\c\n' })).toBe('{"list":[2,1],"s":"a\\"b\\\\c\\n"}');
  });

  it('refuses what JSON cannot hold faithfully', () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson({ n: Number.POSITIVE_INFINITY })).toThrow(TypeError);
    expect(() => canonicalJson({ f: () => 1 })).toThrow(TypeError);
    expect(() => canonicalJson({ b: 1n })).toThrow(TypeError);
  });
});

describe('eventHash', () => {
  it('is SHA-256 over prev_hash followed by the canonical event (fixed vector)', () => {
    // The vector pins the canonical form: a change here would break every stored chain.
    expect(canonicalEvent(event)).toBe(
      '{"businessIds":{"personId":"p-1"},"commandId":"party-rest.persons.create","correlationId":"corr-1",' +
        '"details":{"n":1,"policy":"tenant_admin"},"eventId":"00000000-0000-4000-8000-000000000001",' +
        '"occurredAt":"2040-01-01T00:00:00.000Z","principalId":"alice","result":"success","seq":1,"tenantId":"alpha",' +
        '"traceId":null,"type":"command.executed"}',
    );
    expect(eventHash(GENESIS_HASH, event)).toBe('62a701a7b2eacc98393b7fc24cddae2fc61c219a32c452e0e30d66e33f93d3e7');
  });

  it('starts every chain from 64 zeros', () => {
    expect(GENESIS_HASH).toMatch(/^0{64}$/);
  });

  it('changes when any field or the previous hash changes, not when detail keys are reordered', () => {
    const base = eventHash(GENESIS_HASH, event);
    expect(eventHash('1'.repeat(64), event)).not.toBe(base);
    expect(eventHash(GENESIS_HASH, { ...event, seq: 2 })).not.toBe(base);
    expect(eventHash(GENESIS_HASH, { ...event, tenantId: 'beta' })).not.toBe(base);
    expect(eventHash(GENESIS_HASH, { ...event, result: 'failure' })).not.toBe(base);
    expect(eventHash(GENESIS_HASH, { ...event, principalId: null })).not.toBe(base);
    expect(eventHash(GENESIS_HASH, { ...event, details: { policy: 'tenant_admin', n: 2 } })).not.toBe(base);
    expect(eventHash(GENESIS_HASH, { ...event, details: { n: 1, policy: 'tenant_admin' } })).toBe(base);
  });

  it('ignores link fields passed along with the event', () => {
    expect(eventHash(GENESIS_HASH, { ...event, prevHash: 'x', hash: 'y' } as HashedEventFields)).toBe(
      eventHash(GENESIS_HASH, event),
    );
  });
});

describe('canonicalEvent', () => {
  it('writes exactly canonicalJson of the hashed fields, for any event', () => {
    const pick = <T>(xs: T[], i: number): T => xs[i % xs.length]!;
    const texts = ['', 'a', 'Zürich', 'line\nbreak', 'quote"and\\slash', '\u2028', '😀', 'x'.repeat(300)];
    for (let i = 0; i < 500; i++) {
      const event: HashedEventFields = {
        tenantId: pick(['acme', 't-1', 'zz'], i),
        seq: i * 7919,
        eventId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        occurredAt: new Date(1_700_000_000_000 + i * 1000).toISOString(),
        type: pick(['command.executed', 'authorization.denied', 'gdpr_erasure'], i),
        commandId: pick([null, 'token.exchange', pick(texts, i)], i),
        principalId: pick([null, 'user-1', pick(texts, i + 1)], i + 2),
        result: pick(['success', 'failure', 'denied'] as const, i),
        correlationId: pick([null, 'c-1', pick(texts, i + 3)], i + 1),
        traceId: pick([null, undefined, '4bf92f3577b34da6a3ce929d0e0e4736'], i) as string | null,
        businessIds:
          i % 4 === 0 ? {} : ({ zeta: pick(texts, i), alpha: `id-${i}`, Mixed: 'M' } as Record<string, string>),
        details: (i % 5 === 0
          ? {}
          : {
              z: [3, 1, { b: 2, a: pick(texts, i + 4) }],
              a: i % 2 === 0,
              m: null,
              u: undefined,
              n: i / 3,
            }) as HashedEventFields['details'],
      };
      expect(canonicalEvent(event)).toBe(canonicalEventReference(event));
    }
  });
});

describe('canonical form', () => {
  it('writes prepared events (keys laid out sorted) with JSON.stringify, exactly as canonicalJson', () => {
    const prepared = toStorableJson({ z: [3, { b: 2, a: 'é"\\' }], a: true, m: null, n: 1 / 3, u: undefined });
    expect(JSON.stringify(prepared)).toBe('{"a":true,"m":null,"n":0.3333333333333333,"z":[3,{"a":"é\\"\\\\","b":2}]}');
    expect(inCanonicalForm(prepared, 0)).toBe(true);
    const event: HashedEventFields = {
      tenantId: 'acme',
      seq: 12,
      eventId: '00000000-0000-4000-8000-000000000012',
      occurredAt: '2040-01-01T00:00:00.000Z',
      type: 'command.executed',
      commandId: 'status-list.update-entry',
      principalId: 'client:tessera-admin',
      result: 'success',
      correlationId: 'c-1',
      traceId: undefined as unknown as null,
      businessIds: { index: '7', listId: 'l-1', newStatus: 'revoked', oldStatus: 'valid' },
      details: prepared as HashedEventFields['details'],
    };
    expect(canonicalEvent(event)).toBe(canonicalEventReference(event));
    expect(canonicalEvent(event)).not.toContain('traceId');
  });

  it('leaves to canonicalJson what JSON.stringify would write differently', () => {
    expect(inCanonicalForm({ b: 1, a: 2 }, 0)).toBe(false);
    // Integer-like keys come first in any object, whatever the insertion order: "10" sorts before "9".
    expect(inCanonicalForm({ 9: 'x', 10: 'y' }, 0)).toBe(false);
    expect(inCanonicalForm({ 1: 'x', 2: 'y', a: 'z' }, 0)).toBe(true);
    expect(inCanonicalForm({ when: new Date(0) }, 0)).toBe(false);
    expect(inCanonicalForm({ custom: { toJSON: () => 'c' } }, 0)).toBe(false);
    expect(inCanonicalForm({ n: Number.NaN }, 0)).toBe(false);
    expect(inCanonicalForm({ f: () => 1 }, 0)).toBe(false);
    expect(inCanonicalForm({ big: 1n }, 0)).toBe(false);
    expect(inCanonicalForm([1, undefined], 0)).toBe(false);
    // eslint-disable-next-line no-sparse-arrays -- a hole is what this case tests.
    expect(inCanonicalForm([1, , 3], 0)).toBe(false);
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 20; i++) deep = { next: deep };
    expect(inCanonicalForm(deep, 0)).toBe(false);
    // Each of them still hashes as canonicalJson writes it.
    const event = (details: Record<string, unknown>): HashedEventFields => ({
      tenantId: 't',
      seq: 1,
      eventId: 'e',
      occurredAt: 'o',
      type: 'x',
      commandId: null,
      principalId: null,
      result: 'success',
      correlationId: null,
      traceId: null,
      businessIds: { b: '1', a: '2' },
      details,
    });
    for (const details of [{ 9: 'x', 10: 'y' }, { when: new Date(0) }, deep])
      expect(canonicalEvent(event(details))).toBe(canonicalEventReference(event(details)));
  });
});

describe('storable values', () => {
  it('replaces NUL and lone surrogates, keeps surrogate pairs', () => {
    expect(storableString('a\u0000b')).toBe('a\uFFFDb');
    expect(storableString('x\uD800y\uDC00')).toBe('x\uFFFDy\uFFFD');
    expect(storableString('emoji \u{1F600}')).toBe('emoji \u{1F600}');
  });

  it('reduces a value to the JSON that will be stored', () => {
    expect(
      toStorableJson({
        when: new Date('2040-01-01T00:00:00Z'),
        gone: undefined,
        bad: Number.NaN,
        nul: 'a\u0000',
        ['k\u0000']: 1,
      }),
    ).toEqual({
      when: '2040-01-01T00:00:00.000Z',
      bad: null,
      nul: 'a\uFFFD',
      'k\uFFFD': 1,
    });
    expect(toStorableJson(undefined)).toBeNull();
  });

  it('copies plain data directly exactly as the JSON round trip stores it, and leaves the rest to the round trip', () => {
    class Money {
      constructor(readonly amount: number) {}
    }
    const nested: Record<string, unknown> = { level: 0 };
    let cursor = nested;
    for (let i = 1; i < 40; i++) cursor = (cursor.next = { level: i }) as Record<string, unknown>;
    const withProto = JSON.parse('{"__proto__": {"x": 1}, "y": 2}') as unknown;
    const values: unknown[] = [
      { policy: 'tenant_admin', n: 1, ok: true, none: null },
      { reason: 'missing_scope', client_id: 'c\u0000lient', list: ['a', 1, false, null, { deep: 'x\uD800' }] },
      { 2: 'two', 1: 'one', b: 'b', a: 'a' },
      { zero: -0, big: 1e21, small: 5e-7 },
      { gone: undefined, kept: 'k' },
      { nan: Number.NaN, inf: Number.POSITIVE_INFINITY },
      { when: new Date('2040-01-01T00:00:00Z') },
      { money: new Money(3) },
      { custom: { toJSON: () => 'custom' } },
      { list: [1, undefined, 3] },
      // eslint-disable-next-line no-sparse-arrays -- a hole is what this member tests.
      { holes: [1, , 3] },
      { fn: () => 1, sym: Symbol('s') },
      { map: new Map([['a', 1]]) },
      Object.assign(Object.create(null) as object, { bare: 'prototype-less' }),
      withProto,
      nested,
      ['top', 'level'],
      'a string',
      42,
      null,
      undefined,
      { 'k\u0000': 1, 'k\uD800': 2 },
      { emoji: '\u{1F600}', accents: 'éàü' },
    ];
    for (const value of values) {
      const direct = toStorableJson(value);
      const reference = toStorableJsonReference(value);
      // The same data; the direct copy lays object keys out sorted (the canonical order), the round trip does not.
      expect(direct).toStrictEqual(reference);
      expect(canonicalJson(direct)).toBe(canonicalJson(reference));
      expect(Object.getPrototypeOf(direct ?? {})).toEqual(Object.getPrototypeOf(reference ?? {}));
    }
    expect(Object.is((toStorableJson({ zero: -0 }) as { zero: number }).zero, 0)).toBe(true);
  });
});
