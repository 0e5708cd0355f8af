import { describe, expect, it } from 'vitest';
import { decodeJws } from './jws.js';

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jws = (header: Record<string, unknown>) => `${part(header)}.${part({ iss: 'https://issuer.example' })}.c2ln`;

describe('decodeJws', () => {
  it('decodes a compact JWS with JSON header and payload', () => {
    expect(decodeJws(jws({ alg: 'ES256', typ: 'dc+sd-jwt' }))).toMatchObject({
      header: { alg: 'ES256' },
      payload: { iss: 'https://issuer.example' },
    });
  });

  it('refuses a header with crit, whatever it names (RFC 7515 §4.1.11: no extension is understood here)', () => {
    expect(decodeJws(jws({ alg: 'ES256', crit: ['exp'], exp: 1 }))).toBeNull();
    expect(decodeJws(jws({ alg: 'ES256', crit: [] }))).toBeNull();
    expect(decodeJws(jws({ alg: 'ES256', crit: ['b64'], b64: false }))).toBeNull();
  });

  it('refuses what is not a compact JWS of JSON objects', () => {
    for (const text of ['a.b', `${part([1])}.${part({})}.x`, `${part({ alg: 'ES256' })}.${part('text')}.x`, '..'])
      expect(decodeJws(text)).toBeNull();
  });
});
