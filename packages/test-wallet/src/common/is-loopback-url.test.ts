import { describe, expect, it } from 'vitest';
import { isLoopbackUrl } from './is-loopback-url.js';

describe('isLoopbackUrl', () => {
  it.each(['http://localhost:8090/x', 'http://127.0.0.1/x', 'http://127.10.0.3:1/', 'http://[::1]:8080/'])(
    '%s is loopback',
    (url) => {
      expect(isLoopbackUrl(url)).toBe(true);
    },
  );
  it.each(['http://example.com/', 'http://10.0.0.1/', 'http://localhost.example.com/', 'not a url'])(
    '%s is not',
    (url) => {
      expect(isLoopbackUrl(url)).toBe(false);
    },
  );
});
