import { invalidField } from './errors.js';

/**
 * Registrations of an organization (001 §2.5): a scheme, a value, an issuing authority. The value is normalised
 * (upper case, no spaces, dots or hyphens) and checked where the scheme has a rule: the LEI's ISO 17442 check
 * digits (ISO 7064 MOD 97-10), the EU VAT number's format per member state (the VIES formats). Other schemes are
 * recorded as given.
 */
export const SCHEME_PATTERN = '^[A-Z][A-Z0-9_]{1,31}$';

/** VAT identification number formats of the EU member states (and XI, Northern Ireland), after the prefix. */
const VAT_FORMATS: Record<string, RegExp> = {
  AT: /^U\d{8}$/,
  BE: /^[01]\d{9}$/,
  BG: /^\d{9,10}$/,
  CY: /^\d{8}[A-Z]$/,
  CZ: /^\d{8,10}$/,
  DE: /^\d{9}$/,
  DK: /^\d{8}$/,
  EE: /^\d{9}$/,
  EL: /^\d{9}$/,
  ES: /^[0-9A-Z]\d{7}[0-9A-Z]$/,
  FI: /^\d{8}$/,
  FR: /^[0-9A-Z]{2}\d{9}$/,
  HR: /^\d{11}$/,
  HU: /^\d{8}$/,
  IE: /^\d[0-9A-Z+*]\d{5}[A-Z]{1,2}$/,
  IT: /^\d{11}$/,
  LT: /^(\d{9}|\d{12})$/,
  LU: /^\d{8}$/,
  LV: /^\d{11}$/,
  MT: /^\d{8}$/,
  NL: /^\d{9}B\d{2}$/,
  PL: /^\d{10}$/,
  PT: /^\d{9}$/,
  RO: /^\d{2,10}$/,
  SE: /^\d{12}$/,
  SI: /^\d{8}$/,
  SK: /^\d{10}$/,
  XI: /^(\d{9}|\d{12}|GD\d{3}|HA\d{3})$/,
};

export const normaliseRegistrationValue = (value: string) => value.toUpperCase().replace(/[\s.-]/g, '');

/** ISO 17442: 18 alphanumerics and 2 check digits; letters count A=10 … Z=35, the whole number mod 97 is 1. */
export function isValidLei(lei: string): boolean {
  if (!/^[0-9A-Z]{18}[0-9]{2}$/.test(lei)) return false;
  let remainder = 0;
  for (const ch of lei) {
    const digits = ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of digits) remainder = (remainder * 10 + Number(d)) % 97;
  }
  return remainder === 1;
}

export function isValidVat(vat: string): boolean {
  const format = VAT_FORMATS[vat.slice(0, 2)];
  return format !== undefined && format.test(vat.slice(2));
}

/** The value to store for a registration of `scheme`, or 400 naming `value`. */
export function registrationValue(scheme: string, raw: string): string {
  const value = normaliseRegistrationValue(raw);
  if (value.length === 0) throw invalidField('value', 'value is empty.');
  if (scheme === 'LEI' && !isValidLei(value))
    throw invalidField('value', 'value is not an LEI (ISO 17442: 20 characters, check digits mod 97).');
  if (scheme === 'VAT' && !isValidVat(value))
    throw invalidField('value', 'value is not an EU VAT number (member-state prefix and its format).');
  return value;
}
