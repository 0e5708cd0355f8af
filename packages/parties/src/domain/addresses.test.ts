import { describe, expect, it } from 'vitest';
import { electronicValue } from './addresses.js';

describe('electronic address values', () => {
  it('keeps the local part of an e-mail address and lower-cases its domain', () => {
    expect(electronicValue('EMAIL', ' Ada.King+news@Example.ORG ')).toBe('Ada.King+news@example.org');
  });

  it('refuses what is not an e-mail address', () => {
    for (const value of ['ada', 'ada@', '@example.org', 'ada@example', 'a..b@example.org', `${'a'.repeat(65)}@x.org`])
      expect(() => electronicValue('EMAIL', value)).toThrow(expect.objectContaining({ field: 'value' }));
  });

  it('takes phone numbers in E.164 form, spaces and hyphens removed', () => {
    expect(electronicValue('PHONE', '+49 30 1234-5678')).toBe('+493012345678');
    for (const value of ['030 1234', '+0301234', '+1234567890123456', '+49 (30) 1234'])
      expect(() => electronicValue('PHONE', value)).toThrow(expect.objectContaining({ field: 'value' }));
  });

  it('takes absolute URIs with a scheme', () => {
    expect(electronicValue('URI', 'https://example.org/a?b')).toBe('https://example.org/a?b');
    expect(electronicValue('URI', 'urn:isbn:0451450523')).toBe('urn:isbn:0451450523');
    for (const value of ['example.org', '/relative', '://x'])
      expect(() => electronicValue('URI', value)).toThrow(expect.objectContaining({ field: 'value' }));
  });
});
