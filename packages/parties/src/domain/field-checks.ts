import { invalidField } from './errors.js';
import type { PartyFields } from './party-record.js';

/**
 * Checks of a party's fields beyond their schema (which has types, lengths and formats): a birth date is a past
 * calendar date (format "date" already refuses 2001-02-30).
 */
export function checkFields(fields: PartyFields, now: Date): void {
  const birthDate = fields.birthDate;
  if (typeof birthDate === 'string' && birthDate > now.toISOString().slice(0, 10))
    throw invalidField('birthDate', 'birthDate lies in the future.');
}
