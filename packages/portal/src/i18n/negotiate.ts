import { de } from './de.js';
import { en, type MessageKey, type Messages } from './en.js';

export const LANGUAGES = ['en', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en';

const CATALOGUES: Record<Language, Messages> = { en, de };

const isLanguage = (value: string): value is Language => (LANGUAGES as readonly string[]).includes(value);

/**
 * The language of a page from Accept-Language (RFC 9110 §12.5.4): ranges ordered by q-value (ties keep their order),
 * q=0 means "not this one", a range matches by its primary subtag (de-CH → de), `*` means any. English when nothing
 * matches.
 */
export function negotiateLanguage(header: string | undefined): Language {
  if (!header) return DEFAULT_LANGUAGE;
  const ranges = header
    .split(',')
    .slice(0, 32)
    .map((part, index) => {
      const [tag = '', ...attributes] = part.trim().split(';');
      const q = attributes
        .map((a) => /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(a)?.[1])
        .find((v) => v !== undefined);
      return { primary: tag.trim().toLowerCase().split('-')[0]!, q: q === undefined ? 1 : Number(q), index };
    })
    .filter((r) => r.primary);
  const refused = new Set(ranges.filter((r) => r.q === 0).map((r) => r.primary));
  const wanted = ranges.filter((r) => r.q > 0).sort((a, b) => b.q - a.q || a.index - b.index);
  for (const range of wanted) {
    if (range.primary === '*') return LANGUAGES.find((l) => !refused.has(l)) ?? DEFAULT_LANGUAGE;
    if (isLanguage(range.primary) && !refused.has(range.primary)) return range.primary;
  }
  return DEFAULT_LANGUAGE;
}

/** A `lang` parameter the page passes to its script's requests wins over the header, so page and updates agree. */
export const languageFrom = (param: unknown, header: string | undefined): Language =>
  typeof param === 'string' && isLanguage(param) ? param : negotiateLanguage(header);

export type Translate = (key: MessageKey, values?: Record<string, string>) => string;

/** The catalogue of one language as a function; `{name}` placeholders are replaced, never interpreted. */
export function translator(language: Language): Translate {
  const messages = CATALOGUES[language];
  return (key, values = {}) => messages[key].replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}
