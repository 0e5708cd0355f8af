import { AppError, invalidRequest } from '@tessera/platform';
import { canonicalLocale } from './locales.js';
import type { RenderVariantInput } from './records.js';

/** A variant's locales (and its template's) are BCP-47, stored canonical and once each. */
export function normalizeVariant(input: RenderVariantInput): RenderVariantInput {
  const locales: string[] = [];
  input.locales.forEach((l, i) => {
    const locale = canonicalLocale(l, `locales.${i}`);
    if (locales.includes(locale)) throw invalidRequest(`The locale ${locale} is listed twice.`, `locales.${i}`);
    locales.push(locale);
  });
  const out: RenderVariantInput = { ...input, locales };
  if (input.template)
    out.template = { ...input.template, locale: canonicalLocale(input.template.locale, 'template.locale') };
  return out;
}

export const variantNotFound = () => new AppError('not_found', 'No such render variant in this tenant.');
export const variantDesignUnknown = () => invalidRequest('No design with this id in this tenant.', 'designId');
