import { describe, expect, it } from 'vitest';
import { fold, prefixRange, searchPlan, searchQuery, searchText, searchWords } from './search-text.js';

describe('free-text search text', () => {
  it('folds case, accents and punctuation the same way for stored names and queries', () => {
    expect(fold('Zoë MÜLLER-Lüdenscheidt')).toBe('zoe muller ludenscheidt');
    expect(fold('Weiß, Ærøskøbing')).toBe('weiss ærøskøbing'.normalize('NFKD').replace(/\p{M}+/gu, ''));
    expect(searchText(['Zoë Müller', null, 'Zoë', undefined, 'Müller'])).toBe('zoe muller zoe muller');
  });

  it('makes every word a required prefix, and no query syntax survives', () => {
    expect(searchQuery('Zoë mül')).toBe('zoe:* & mul:*');
    expect(searchQuery("'; DROP TABLE parties; --")).toBe('drop:* & table:* & parties:*');
    expect(searchQuery('a:* | !b & (c <-> d)')).toBe('a:* & b:* & c:* & d:*');
    expect(searchQuery('!!! ---')).toBeNull();
  });

  it('bounds the words of a query and their length', () => {
    expect(searchQuery(Array.from({ length: 20 }, (_, i) => `w${i}`).join(' '))!.split(' & ')).toHaveLength(8);
    expect(searchQuery('x'.repeat(100))).toBe(`${'x'.repeat(64)}:*`);
  });
});

describe('search plan', () => {
  it('probes the index with the longest word as a prefix range, and checks every word', () => {
    expect(searchPlan('Zoë Müllerova')).toEqual({
      tsQuery: 'zoe:* & mullerova:*',
      probe: { from: 'mullerova', to: 'mullerovb' },
    });
    expect(searchPlan('---')).toBeNull();
  });

  it('bounds a prefix by its last code point plus one (UTF-8 byte order is code point order)', () => {
    expect(prefixRange('ab')).toEqual({ from: 'ab', to: 'ac' });
    expect(prefixRange('øz')).toEqual({ from: 'øz', to: 'ø{' });
    expect(prefixRange('a😀')).toEqual({ from: 'a😀', to: 'a😁' });
    expect(Buffer.compare(Buffer.from('azzz'), Buffer.from(prefixRange('a').to))).toBe(-1);
  });

  it('indexes each distinct word once', () => {
    expect(searchWords('zoe muller zoe  muller ')).toEqual(['zoe', 'muller']);
  });
});
