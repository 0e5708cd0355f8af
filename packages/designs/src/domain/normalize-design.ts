import { AppError, invalidRequest } from '@tessera/platform';
import type { Binding, Claim, DesignInput, Display } from './records.js';
import { canonicalLocale } from './locales.js';

/**
 * The checks a schema cannot express (001 §2.1): locales are BCP-47 (stored canonical) and unique per list, a
 * binding pair appears once, claim paths are unique. The result is the form stored.
 */
export function normalizeDesign(input: DesignInput): DesignInput {
  const seen = new Set<string>();
  input.bindings.forEach((b, i) => {
    const k = `${b.key}\u0000${b.value}`;
    if (seen.has(k)) throw invalidRequest('A binding is listed twice.', `bindings.${i}`);
    seen.add(k);
  });
  const out: DesignInput = {
    ...input,
    bindings: input.bindings.map((b): Binding => ({ key: b.key, value: b.value })),
    displays: normalizeDisplays(input.displays, 'displays'),
  };
  if (input.claims !== undefined) out.claims = normalizeClaims(input.claims);
  if (input.lockedFields !== undefined) out.lockedFields = [...new Set(input.lockedFields)].sort();
  return out;
}

export function normalizeDisplays(displays: readonly Display[], field: string): Display[] {
  const locales = new Set<string>();
  return displays.map((d, i) => {
    const locale = canonicalLocale(d.locale, `${field}.${i}.locale`);
    if (locales.has(locale)) throw invalidRequest(`The locale ${locale} has two displays.`, `${field}.${i}.locale`);
    locales.add(locale);
    return { ...d, locale };
  });
}

function normalizeClaims(claims: readonly Claim[]): Claim[] {
  const paths = new Set<string>();
  return claims.map((c, i) => {
    const key = pathKey(c.path);
    if (paths.has(key)) throw invalidRequest('Two claims have the same path.', `claims.${i}.path`);
    paths.add(key);
    const labelLocales = new Set<string>();
    const labels = c.labels.map((l, j) => {
      const locale = canonicalLocale(l.locale, `claims.${i}.labels.${j}.locale`);
      if (labelLocales.has(locale))
        throw invalidRequest(`The locale ${locale} has two labels.`, `claims.${i}.labels.${j}.locale`);
      labelLocales.add(locale);
      return { locale, label: l.label };
    });
    return { ...c, labels };
  });
}

/** A claim path as one comparable string: `address.street`, `nationalities[]`, `items[0]`. */
export function pathKey(path: readonly { kind: string; name: string }[]): string {
  return path
    .map((p, i) =>
      p.kind === 'AnyIndex' ? '[]' : p.kind === 'Index' ? `[${p.name}]` : i === 0 ? p.name : `.${p.name}`,
    )
    .join('');
}

export const designNotFound = () => new AppError('not_found', 'No such design in this tenant.');
export const bindingTaken = () =>
  new AppError('already_exists', 'A design with one of these bindings exists already in this tenant.');
