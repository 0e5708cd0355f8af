import { invalidField } from './errors.js';

/**
 * Electronic addresses (001 §2.5): the value is checked for its type. EMAIL: an addr-spec of RFC 5321 sizes
 * (local part up to 64, whole up to 254) with a dotted domain, stored with the domain in lower case. PHONE:
 * E.164 (a plus, up to 15 digits, no leading zero), spaces and hyphens removed. URI: an absolute URI (RFC 3986)
 * with a scheme.
 */
export const ELECTRONIC_TYPES = ['EMAIL', 'PHONE', 'URI'] as const;
export type ElectronicType = (typeof ELECTRONIC_TYPES)[number];

export const PHYSICAL_TYPES = ['HOME', 'WORK', 'POSTAL', 'REGISTERED', 'OTHER'] as const;

const EMAIL =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const E164 = /^\+[1-9]\d{1,14}$/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

export function electronicValue(type: ElectronicType, raw: string): string {
  const value = raw.trim();
  switch (type) {
    case 'EMAIL': {
      if (value.length > 254 || !EMAIL.test(value) || value.includes('..'))
        throw invalidField('value', 'value is not an e-mail address.');
      const at = value.lastIndexOf('@');
      return `${value.slice(0, at)}@${value.slice(at + 1).toLowerCase()}`;
    }
    case 'PHONE': {
      const phone = value.replace(/[\s-]/g, '');
      if (!E164.test(phone)) throw invalidField('value', 'value is not a phone number in E.164 form (+ and digits).');
      return phone;
    }
    case 'URI': {
      if (!SCHEME.test(value) || !URL.canParse(value)) throw invalidField('value', 'value is not an absolute URI.');
      return value;
    }
  }
}
