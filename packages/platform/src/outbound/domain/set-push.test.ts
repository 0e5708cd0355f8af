import { describe, expect, it } from 'vitest';
import { setErrorCode } from './set-push.js';

describe('setErrorCode (RFC 8935 §2.3 error bodies)', () => {
  it('answers a registered err code as sent', () => {
    expect(setErrorCode('{"err":"invalid_key","description":"unknown kid"}')).toBe('invalid_key');
    expect(setErrorCode('{"err":"access_denied"}')).toBe('access_denied');
  });

  it('reduces an unregistered code to "other", so a receiver text is never stored', () => {
    expect(setErrorCode('{"err":"my own words"}')).toBe('other');
  });

  it('answers undefined for a 400 that is not such an error (the delivery is then retried)', () => {
    for (const body of ['', 'bad request', '[]', 'null', '{"error":"x"}', '{"err":3}', '{"err":""}', '{"err":'])
      expect(setErrorCode(body)).toBeUndefined();
  });
});
