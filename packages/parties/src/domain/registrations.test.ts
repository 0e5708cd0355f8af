import { describe, expect, it } from 'vitest';
import { isValidLei, isValidVat, registrationValue } from './registrations.js';

describe('LEI (ISO 17442, ISO 7064 MOD 97-10)', () => {
  const valid = ['HWUPKR0MPOU8FGXBT394', '5493001KJTIIGC8Y1R12', '7LTWFZYICNSX8D621K86'];

  it('accepts LEIs whose check digits hold', () => {
    for (const lei of valid) expect(isValidLei(lei)).toBe(true);
  });

  it('refuses any single changed digit, a wrong length and a lower-case or punctuated form', () => {
    // MOD 97-10 detects every single substitution of a digit.
    for (const lei of valid)
      for (let i = 0; i < lei.length; i++) {
        if (!/[0-9]/.test(lei[i]!)) continue;
        const swapped = lei.slice(0, i) + String((Number(lei[i]) + 1) % 10) + lei.slice(i + 1);
        expect(isValidLei(swapped)).toBe(false);
      }
    expect(isValidLei('HWUPKR0MPOU8FGXBT39')).toBe(false);
    expect(isValidLei('hwupkr0mpou8fgxbt394')).toBe(false);
    expect(isValidLei('HWUPKR0MPOU8FGXBT3-4')).toBe(false);
  });

  it('normalises before checking, and names the value when refusing', () => {
    expect(registrationValue('LEI', 'hwup kr0m-pou8.fgxbt394')).toBe('HWUPKR0MPOU8FGXBT394');
    expect(() => registrationValue('LEI', 'HWUPKR0MPOU8FGXBT395')).toThrow(expect.objectContaining({ field: 'value' }));
  });
});

describe('EU VAT numbers (VIES formats)', () => {
  it('accepts each member state’s format and refuses others', () => {
    for (const vat of ['DE123456789', 'ATU12345678', 'NL123456789B01', 'FR0X123456789', 'BE0123456789', 'ESX1234567X'])
      expect(isValidVat(vat)).toBe(true);
    for (const vat of ['DE12345678', 'AT12345678', 'NL123456789', 'US123456789', 'GB123456789', 'BE2123456789'])
      expect(isValidVat(vat)).toBe(false);
  });

  it('keeps other schemes as given, normalised', () => {
    expect(registrationValue('DUNS', '15-048-3782')).toBe('150483782');
  });
});
