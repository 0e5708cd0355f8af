import { describe, expect, it } from 'vitest';
import { de } from './de.js';
import { en } from './en.js';
import { languageFrom, negotiateLanguage, translator } from './negotiate.js';

describe('negotiateLanguage (RFC 9110 §12.5.4)', () => {
  it.each([
    [undefined, 'en'],
    ['', 'en'],
    ['de', 'de'],
    ['de-CH', 'de'],
    ['DE-de', 'de'],
    ['en-US,en;q=0.9,de;q=0.8', 'en'],
    ['fr;q=0.2, de-DE;q=0.9, en;q=0.5', 'de'],
    ['en;q=0.4, de;q=0.6', 'de'],
    ['de;q=0.5, en;q=0.5', 'de'],
    ['fr, it', 'en'],
    ['fr, *;q=0.1', 'en'],
    ['de;q=0, *', 'en'],
    ['en;q=0, *', 'de'],
    ['en;q=0, de;q=0.001', 'de'],
    ['de;q=0.0', 'en'],
    ['de;q=abc, en;q=0.3', 'de'],
    [';;;,,,', 'en'],
  ])('%j → %s', (header, language) => {
    expect(negotiateLanguage(header)).toBe(language);
  });

  it('lets the page parameter win over the header, and ignores an unknown one', () => {
    expect(languageFrom('de', 'en')).toBe('de');
    expect(languageFrom('xx', 'de')).toBe('de');
    expect(languageFrom(undefined, undefined)).toBe('en');
  });
});

describe('message catalogues', () => {
  const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

  it('have the same keys, no empty text, and the same placeholders per key', () => {
    expect(Object.keys(de).sort()).toEqual(Object.keys(en).sort());
    for (const key of Object.keys(en) as Array<keyof typeof en>) {
      expect(en[key].trim(), key).not.toBe('');
      expect(de[key].trim(), key).not.toBe('');
      expect(placeholders(de[key]), key).toEqual(placeholders(en[key]));
    }
  });

  it('fills placeholders with the given text as it is', () => {
    expect(translator('de')('signinClient', { client: '{client} & co' })).toBe('Sie melden sich bei {client} & co an.');
    expect(translator('en')('statusFailed')).toBe('The sign-in did not succeed. {reason}');
  });
});
