import { describe, expect, it } from 'vitest';
import { AppError } from '@tessera/platform';
import { parseStrictJson } from './strict-json.js';

const parse = (text: string | Uint8Array, depth?: number) =>
  parseStrictJson(typeof text === 'string' ? Buffer.from(text, 'utf8') : text, depth);

const refusal = (text: string | Uint8Array, depth?: number): AppError => {
  try {
    parse(text, depth);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a refusal');
};

describe('parseStrictJson', () => {
  it('parses well-formed JSON, escapes and non-ASCII text included', () => {
    expect(parse('{"a":[1,{"b":"\\u00e9\\"}"}],"c":"é","d":null}')).toEqual({ a: [1, { b: 'é"}' }], c: 'é', d: null });
    expect(parse(' [ ] ')).toEqual([]);
    // The same name in different objects is no duplicate.
    expect(parse('{"a":{"x":1},"b":{"x":2},"c":[{"x":3},{"x":4}]}')).toEqual({
      a: { x: 1 },
      b: { x: 2 },
      c: [{ x: 3 }, { x: 4 }],
    });
    // Brackets and quotes inside strings are text.
    expect(parse('{"a":"{[\\"a\\":1,","b":"]}"}')).toEqual({ a: '{["a":1,', b: ']}' });
  });

  it('refuses duplicate names, also when spelled with escapes, at any depth', () => {
    for (const text of ['{"a":1,"a":2}', '{"a":1,"\\u0061":2}', '{"x":[{"k":1,"b":{},"k":2}]}', '{"o":{"a":1,"a":1}}'])
      expect(refusal(text).message).toMatch(/repeats a member name/);
  });

  it('refuses a __proto__ member anywhere', () => {
    expect(refusal('{"a":{"__proto__":{}}}').message).toMatch(/__proto__/);
    expect(refusal('{"\\u005f_proto__":1}').message).toMatch(/__proto__/);
  });

  it('refuses nesting deeper than the limit without recursion, and accepts the limit', () => {
    expect(refusal('['.repeat(100_000) + ']'.repeat(100_000)).message).toMatch(/nested deeper than 64/);
    expect(parse('['.repeat(64) + ']'.repeat(64))).toBeDefined();
    expect(refusal('['.repeat(65) + ']'.repeat(65)).code).toBe('invalid_request');
    expect(refusal('{"a":[[1]]}', 2).message).toMatch(/deeper than 2/);
  });

  it('refuses invalid UTF-8 (bad bytes, overlong forms, encoded surrogates) instead of replacing it', () => {
    for (const bytes of [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]]) {
      const body = Buffer.concat([Buffer.from('{"a":"'), Buffer.from(bytes), Buffer.from('"}')]);
      expect(refusal(body).message).toMatch(/UTF-8/);
    }
  });

  it('refuses empty and malformed text, also when the scan cannot make sense of it', () => {
    for (const text of ['', '  ', '{', '{"a":}', '{"a":1}}', '"unterminated', '{"a":1,}', 'nul', "{'a':1}"])
      expect(refusal(text).code).toBe('invalid_request');
  });
});
