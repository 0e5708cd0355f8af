import { describe, expect, it } from 'vitest';
import { base64url } from 'jose';
import { base64urlBytes, base64urlJson, signingInputBytes } from './jws-encoding.js';

describe('JWS encoding through Buffer', () => {
  it('equals the portable base64url encoding for JSON (UTF-8 included) and for bytes at any offset', () => {
    for (const value of [{}, { a: 1 }, { name: 'Zoë 𝄞 "quoted" \\ / <tag>', n: [1, 2.5, null] }, 'x', [true]]) {
      expect(base64urlJson(value)).toBe(base64url.encode(JSON.stringify(value)));
    }
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 37) % 256);
    for (const view of [bytes, bytes.subarray(1), bytes.subarray(7, 263), new Uint8Array(0)]) {
      expect(base64urlBytes(view)).toBe(base64url.encode(view));
    }
  });

  it('gives the signing input the bytes a UTF-8 encoder would (it is ASCII)', () => {
    const input = `${base64urlJson({ alg: 'RS256' })}.${base64urlJson({ sub: 'Zoë' })}`;
    expect(new Uint8Array(signingInputBytes(input))).toEqual(new TextEncoder().encode(input));
  });
});
