import { describe, expect, it } from 'vitest';
import { buildPresentationFrame } from './build-presentation-frame.js';

describe('buildPresentationFrame', () => {
  it('maps claims path pointers to the nested @sd-jwt presentation frame', () => {
    const claims = { email: 'a@b', address: { street: 'Main', city: 'X' }, nationalities: ['DE', 'FR'] };
    expect(buildPresentationFrame([['email'], ['address', 'street'], ['nationalities', null]], claims)).toEqual({
      email: true,
      address: { street: true },
      nationalities: { 0: true, 1: true },
    });
    expect(buildPresentationFrame([['nationalities', 1]], claims)).toEqual({ nationalities: { 1: true } });
  });
});
