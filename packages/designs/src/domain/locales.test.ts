import { describe, expect, it } from 'vitest';
import { canonicalLocale, lookupLocale, tryCanonicalLocale } from './locales.js';

describe('locales', () => {
  it('canonicalizes BCP-47 tags and refuses what is not one, naming the field', () => {
    expect(canonicalLocale('de-ch', 'displays.0.locale')).toBe('de-CH');
    expect(canonicalLocale('EN', 'x')).toBe('en');
    expect(canonicalLocale('zh-hant-tw', 'x')).toBe('zh-Hant-TW');
    for (const bad of ['', 'english!', 'de_CH', 'x', '12-34'])
      expect(() => canonicalLocale(bad, 'displays.0.locale'), bad).toThrow(
        expect.objectContaining({ code: 'invalid_request', field: 'displays.0.locale' }),
      );
    expect(tryCanonicalLocale('de_CH')).toBeNull();
  });

  it('looks up as RFC 4647 §3.4: de-CH → de → the default', () => {
    const available = ['en', 'de', 'fr-CH'];
    expect(lookupLocale(['de-CH'], available, 'en')).toBe('de');
    expect(lookupLocale(['fr-CH'], available, 'en')).toBe('fr-CH');
    expect(lookupLocale(['fr'], available, 'en')).toBe('en');
    expect(lookupLocale(['it', 'de-AT'], available, 'en')).toBe('de');
    expect(lookupLocale(['de-CH-x-private'], available, 'en')).toBe('de');
    expect(lookupLocale([], available, 'en')).toBe('en');
    expect(lookupLocale(['ja'], [], null)).toBeNull();
  });
});
