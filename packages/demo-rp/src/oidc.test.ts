import { describe, expect, it } from 'vitest';
import { decodeJwtPayload } from './oidc.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('decodeJwtPayload (jose decodeJwt, display only)', () => {
  it('decodes the claims of a compact JWS', () => {
    expect(decodeJwtPayload(`${b64({ alg: 'RS256' })}.${b64({ sub: 'p1', scope: 'openid' })}.c2ln`)).toEqual({
      sub: 'p1',
      scope: 'openid',
    });
  });

  it('answers null for what is not a compact JWT: two or five parts, a payload that is not an object', () => {
    expect(decodeJwtPayload(`${b64({ alg: 'RS256' })}.${b64({ sub: 'p1' })}`)).toBeNull();
    expect(decodeJwtPayload(`a.${b64({ sub: 'p1' })}.b.c.d`)).toBeNull();
    expect(decodeJwtPayload(`${b64({ alg: 'RS256' })}.${b64(['x'])}.c2ln`)).toBeNull();
    expect(decodeJwtPayload('opaque-token')).toBeNull();
  });
});
