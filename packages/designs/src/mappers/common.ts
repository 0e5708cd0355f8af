import { invalidRequest } from '@tessera/platform';
import type { PathElement, ImageRef, Display } from '../domain/records.js';
import { tryCanonicalLocale } from '../domain/locales.js';

/** Helpers the mappers share: tolerant reading of published documents (a member of the wrong type is skipped). */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export const sourceInvalid = (reason: string) =>
  invalidRequest(`The source document cannot be mapped: ${reason}.`, 'sourceUrl');

/** A locale of a source, canonical; none or an invalid one falls back to the default (texts are kept). */
export const localeOf = (v: unknown, fallback: string): string => {
  const tag = str(v);
  return (tag && tryCanonicalLocale(tag)) ?? fallback;
};

/** `#RGB` and `#RRGGBB` colours, upper case; CSS names and functions are not kept (the API holds hex only). */
export function colourOf(v: unknown): string | undefined {
  const c = str(v)?.trim();
  if (!c) return undefined;
  if (/^#[0-9a-f]{6}$/i.test(c)) return c.toUpperCase();
  if (/^#[0-9a-f]{3}$/i.test(c)) return `#${[...c.slice(1)].map((x) => x + x).join('')}`.toUpperCase();
  return undefined;
}

export function imageOf(v: unknown): ImageRef | undefined {
  if (typeof v === 'string') return str(v) ? { uri: v } : undefined;
  if (!isRecord(v)) return undefined;
  const uri = str(v.uri) ?? str(v.url) ?? str(v.id);
  if (!uri) return undefined;
  const alt = str(v.alt_text) ?? str(v.altText);
  return alt ? { uri, altText: alt } : { uri };
}

/** A claim path of OpenID4VCI 1.0 §B.2 / SD-JWT VC: strings name members, null any element, integers one. */
export function pathOf(v: unknown): PathElement[] | null {
  const parts = arr(v);
  if (parts.length === 0) return null;
  const out: PathElement[] = [];
  for (const p of parts) {
    if (typeof p === 'string' && p !== '') out.push({ kind: 'Property', name: p });
    else if (p === null) out.push({ kind: 'AnyIndex', name: '*' });
    else if (typeof p === 'number' && Number.isInteger(p) && p >= 0) out.push({ kind: 'Index', name: String(p) });
    else return null;
  }
  return out;
}

/** A JSON pointer (RFC 6901) as a claim path: `/credentialSubject/name`. */
export function pointerPath(pointer: string): PathElement[] | null {
  if (!pointer.startsWith('/')) return null;
  const parts = pointer
    .slice(1)
    .split('/')
    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (parts.some((p) => p === '')) return null;
  return parts.map((p) => (/^\d+$/.test(p) ? { kind: 'Index', name: p } : { kind: 'Property', name: p }));
}

/** One display per locale: the first of a locale wins (a source listing a locale twice is not refused). */
export function uniqueByLocale<T extends { locale: string }>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((i) => (seen.has(i.locale) ? false : (seen.add(i.locale), true)));
}

/** Drops undefined members (the stored JSON has no `undefined`). */
export function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** An OpenID4VCI / SD-JWT VC display entry as ours. */
export function displayOf(d: Record<string, unknown>, fallback: string): Display | null {
  const name = str(d.name);
  if (!name) return null;
  const rendering = isRecord(d.rendering) && isRecord(d.rendering.simple) ? d.rendering.simple : d;
  return compact<Display>({
    locale: localeOf(d.locale ?? d.lang, fallback),
    name,
    description: str(d.description),
    logo: imageOf(rendering.logo),
    backgroundColor: colourOf(rendering.background_color),
    backgroundImage: imageOf(rendering.background_image),
    textColor: colourOf(rendering.text_color),
  });
}
