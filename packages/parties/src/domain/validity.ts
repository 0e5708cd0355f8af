import { invalidField } from './errors.js';

/** A validity window (001 §2.5): either end open; when both are given, from is before to. */
export interface Validity {
  validFrom: string | null;
  validTo: string | null;
}

export function checkValidity(window: Validity): Validity {
  const from = window.validFrom === null ? null : Date.parse(window.validFrom);
  const to = window.validTo === null ? null : Date.parse(window.validTo);
  if (from !== null && to !== null && !(from < to)) throw invalidField('validTo', 'validTo must be after validFrom.');
  return {
    validFrom: from === null ? null : new Date(from).toISOString(),
    validTo: to === null ? null : new Date(to).toISOString(),
  };
}
