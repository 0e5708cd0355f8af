import { describe, expect, it } from 'vitest';
import { buildClaims } from './claims.js';

const binding = {
  credentialConfigurationId: 'pid',
  deferrable: false,
  claims: [
    { attributePath: 'person.given_name', claimPath: 'given_name', required: true },
    { attributePath: 'person.town', claimPath: 'address.locality', required: true },
    { attributePath: 'person.zip', claimPath: 'address.postal_code', required: false },
    { attributePath: 'person.nick', claimPath: 'nickname', required: false },
  ],
};

describe('claims of a credential configuration from the bag (001 §2.2 claimsBindings)', () => {
  it('nests dot-notated claim paths and leaves absent optional claims out', () => {
    const values = new Map<string, unknown>([
      ['person.given_name', 'Ada'],
      ['person.town', 'London'],
      ['person.zip', 'N1'],
    ]);
    expect(buildClaims(binding, values)).toEqual({
      complete: true,
      claims: { given_name: 'Ada', address: { locality: 'London', postal_code: 'N1' } },
    });
  });

  it('answers the missing required claims by claim path, and no value', () => {
    expect(buildClaims(binding, new Map([['person.nick', 'A']]))).toEqual({
      complete: false,
      missing: ['given_name', 'address.locality'],
      deferrable: false,
    });
  });

  it('never writes through a prototype key', () => {
    const hostile = {
      ...binding,
      claims: [{ attributePath: 'x', claimPath: '__proto__.polluted', required: true }],
    };
    const result = buildClaims(hostile, new Map([['x', 'yes']]));
    expect(result).toEqual({ complete: true, claims: {} });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
